"""1,000 websocket clients at once against a server in its own process, each logging in and making 50
calls: every call answered, none with an error. Counts only: how long it takes is `make bench`'s."""
from __future__ import annotations

import asyncio
import resource

import aiohttp

from .harness import open_raw
from .test_abuse import served

CLIENTS = 1000
CALLS = 50


def test_1000_clients_x_50_calls_no_errors(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    try:
        with served(tmp_path) as (proc, port, key):
            url = f"ws://127.0.0.1:{port}/api/current"

            async def one_client(n: int, session: aiohttp.ClientSession) -> tuple[int, int]:
                conn = await open_raw(url, session)
                await conn.login(key)
                ok = errors = 0
                for i in range(CALLS):
                    method, params = (("core.ping", []) if i % 5 else ("tengig.targets.query", []))
                    frame = await conn.call(method, *params, timeout=600)
                    if "result" in frame:
                        ok += 1
                    else:
                        errors += 1
                await conn.ws.close()
                return ok, errors

            async def everyone():
                async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
                    return await asyncio.gather(*(one_client(n, session) for n in range(CLIENTS)),
                                                return_exceptions=True)

            outcomes = asyncio.run(everyone())
            alive = proc.poll() is None
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    assert failures == [], f"{len(failures)} clients failed, first: {failures[:1]!r}"
    assert sum(ok for ok, _ in outcomes) == CLIENTS * CALLS
    assert sum(errors for _, errors in outcomes) == 0
    assert alive
