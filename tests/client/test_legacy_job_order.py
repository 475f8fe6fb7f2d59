"""A legacy (24.10 / CORE) server may send a job's final event before the answer that carries the
job's id (the job fails at once, in another thread). The client must still end the call with the
job's outcome instead of waiting forever (seen as a 300 s hang under load). The peer here is a
minimal legacy-protocol websocket that sends the events in exactly that order."""
from __future__ import annotations

import asyncio
import errno
import json
import threading

import pytest
from aiohttp import web

from tengig.client import Client, ClientError


JOB_ID = 41


async def _legacy_peer(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    async for msg in ws:
        frame = json.loads(msg.data)
        if frame.get("msg") == "connect":
            await ws.send_str(json.dumps({"msg": "connected", "session": "s"}))
        elif frame.get("msg") == "sub":
            await ws.send_str(json.dumps({"msg": "ready", "subs": [frame["id"]]}))
        elif frame.get("msg") == "method":
            state = "FAILED" if frame["method"] == "demo.fails_at_once" else "SUCCESS"
            fields = {"id": JOB_ID, "state": state, "result": 7 if state == "SUCCESS" else None,
                      "error": "[ENOSPC] no space" if state == "FAILED" else None,
                      "exc_info": {"errno": errno.ENOSPC, "type": "CallError"} if state == "FAILED" else None}
            # the job's end first, then the answer with its id
            await ws.send_str(json.dumps({"msg": "changed", "collection": "core.get_jobs", "id": JOB_ID,
                                          "fields": fields}))
            await ws.send_str(json.dumps({"msg": "result", "id": frame["id"], "result": JOB_ID}))
    return ws


@pytest.fixture
def peer():
    app = web.Application()
    app.router.add_get("/websocket", _legacy_peer)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = site._server.sockets[0].getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"ws://127.0.0.1:{port}/websocket"
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)


def test_a_job_that_ends_before_its_id_arrives_still_ends_the_call(peer):
    with Client(peer, protocol="legacy") as client:
        with pytest.raises(ClientError) as failed:
            client.call("demo.fails_at_once", job=True, timeout=20)
        assert failed.value.errno == errno.ENOSPC
        assert client.call("demo.succeeds_at_once", job=True, timeout=20) == 7
