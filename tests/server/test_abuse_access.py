"""Abusive clients at the door, each a reproducer from issue 23, against a real server on 127.0.0.1:
a frame over 8 KiB in bytes before login, JSON nested 8,000 deep. Every test asserts answers and
counters, never how long anything took."""
from __future__ import annotations

import asyncio
import json
import logging

import aiohttp
import pytest

from tengig.server.legacy import PATH as LEGACY_PATH

from .harness import open_raw, running_server

CLOSED = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)


def _run(body):
    async def main():
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            return await body(session)
    return asyncio.run(main())


def _legacy_url(srv) -> str:
    return srv.url.replace("/api/current", LEGACY_PATH)


# -- item 7: the cap before login counts bytes ------------------------------------------------------------

@pytest.mark.parametrize("wire", ["jsonrpc", "legacy"])
def test_a_frame_over_8_kib_in_bytes_before_login_closes_the_connection(tmp_path, wire):
    """8,000 euro signs are 8,000 characters but 24,000 bytes: over the 8 KiB a connection that has not
    logged in may send, closed as an over-long frame is (1007). After login the same frame is taken."""
    frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": ["€" * 8000]}, ensure_ascii=False)
    if wire == "legacy":
        frame = json.dumps({"msg": "method", "id": "1", "method": "core.ping", "params": ["€" * 8000]},
                           ensure_ascii=False)
    assert len(frame) < 8192 < len(frame.encode())
    with running_server(tmp_path) as srv:
        url = srv.url if wire == "jsonrpc" else _legacy_url(srv)

        async def body(session):
            anonymous = await open_raw(url, session)
            if wire == "legacy":
                await anonymous.send({"msg": "connect", "version": "1", "support": ["1"]})
                assert (await anonymous.next_frame())["msg"] == "connected"
            await anonymous.send(frame)
            closing = await anonymous.ws.receive(timeout=60)
            logged_in = await open_raw(srv.url, session)
            await logged_in.login(srv.api_key)
            await logged_in.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "core.ping",
                                             "params": ["€" * 8000]}, ensure_ascii=False))
            return closing, await logged_in.answer(2)
        closing, after_login = _run(body)
    assert closing.type in CLOSED and closing.data == 1007, closing
    assert "error" in after_login and after_login["error"]["code"] == -32602  # read, parsed, answered


def test_a_pre_login_frame_of_8_kib_in_bytes_is_still_taken(tmp_path):
    """The cap is 8,192 bytes, not fewer: a frame of exactly that many bytes (multi-byte characters
    included) is answered."""
    with running_server(tmp_path) as srv:
        base = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": [""]}, ensure_ascii=False)
        euros = (8192 - len(base.encode())) // 3
        pad = "x" * (8192 - len(base.encode()) - 3 * euros)
        frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": ["€" * euros + pad]},
                           ensure_ascii=False)
        assert len(frame.encode()) == 8192

        async def body(session):
            conn = await open_raw(srv.url, session)
            await conn.send(frame)
            return await conn.answer(1)
        answer = _run(body)
    assert answer["error"]["code"] == -32602  # core.ping takes no params: answered, not closed


# -- item 9: JSON nested 8,000 deep ---------------------------------------------------------------------------

def test_json_nested_8000_deep_is_answered_without_a_traceback(tmp_path, caplog):
    """'[' * 8000 before login, on /websocket and /api/current: a clean protocol answer on each, nothing
    logged with a traceback, and the same connections and a well-behaved client go on being served."""
    caplog.set_level(logging.DEBUG)
    deep = "[" * 8000
    with running_server(tmp_path) as srv:
        async def body(session):
            legacy = await open_raw(_legacy_url(srv), session)
            await legacy.send({"msg": "connect", "version": "1", "support": ["1"]})
            connected = await legacy.next_frame()
            await legacy.send(deep)
            legacy_answer = await legacy.next_frame()
            await legacy.send({"msg": "ping", "id": "p"})
            pong = await legacy.next_frame()
            current = await open_raw(srv.url, session)
            await current.send(deep)
            current_answer = await current.next_frame()
            ping = await current.result("core.ping")
            other = await open_raw(srv.url, session)
            await other.login(srv.api_key)
            return connected, legacy_answer, pong, current_answer, ping, await other.result("core.ping")
        connected, legacy_answer, pong, current_answer, ping, other = _run(body)
    assert connected["msg"] == "connected"
    assert legacy_answer == {"msg": "failed", "version": "1"}
    assert pong == {"msg": "pong", "id": "p"}
    assert current_answer["error"]["code"] == -32700 and current_answer["id"] is None
    assert ping == other == "pong"
    assert "Traceback" not in caplog.text
    assert [r for r in caplog.records if r.exc_info] == []
