"""200 websocket clients at once, each logging in, subscribing, calling and running a job: every
call answered, no error (how long it takes is `make bench`'s, not a test's)."""
from __future__ import annotations

import asyncio

import aiohttp

from .harness import open_raw, running_server

CLIENTS = 200


def test_200_concurrent_clients(tmp_path):
    with running_server(tmp_path) as srv:
        keys = [srv.api_key] + [srv.keys.create(f"client-{i}")[1] for i in range(3)]

        async def one_client(n: int, session: aiohttp.ClientSession) -> tuple[int, list]:
            conn = await open_raw(srv.url, session)
            await conn.login(keys[n % len(keys)])
            await conn.result("core.subscribe", "core.get_jobs")
            await conn.result("core.set_options", {"legacy_jobs": False})
            pong = await conn.result("core.ping")
            targets = await conn.result("tengig.targets.query")
            counted = await conn.result("demo.jobs.count", {"steps": 2}, timeout=60)
            await conn.ws.close()
            return n, [pong, len(targets), counted]

        async def everyone():
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as session:
                return await asyncio.gather(*(one_client(n, session) for n in range(CLIENTS)))

        outcomes = asyncio.run(everyone())
        jobs = srv.run(_finished_jobs(srv))
    assert sorted(n for n, _ in outcomes) == list(range(CLIENTS))
    assert all(answers == ["pong", 6, 2] for _, answers in outcomes)
    assert jobs == CLIENTS


async def _finished_jobs(srv) -> int:
    return sum(1 for j in srv.server.middleware.jobs.all() if j.state.value == "SUCCESS")
