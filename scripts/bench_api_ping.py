#!/usr/bin/env python3
"""core.ping calls per second on one websocket connection to `tengig serve` (run as a subprocess, so
client and server do not share a GIL): sequential (one call in flight) and pipelined (a window of
calls in flight, at most the server's per-connection limit of 20).

    .venv/bin/python scripts/bench_api_ping.py [--calls 5000] [--window 20] [--via unix|tcp]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "middleware"))

from tengig.server.apikeys import ApiKeyStore  # noqa: E402


async def sequential(ws: aiohttp.ClientWebSocketResponse, calls: int) -> float:
    started = time.perf_counter()
    for i in range(calls):
        await ws.send_str(json.dumps({"jsonrpc": "2.0", "id": i, "method": "core.ping", "params": []}))
        answer = json.loads((await ws.receive()).data)
        assert answer.get("result") == "pong", answer
    return calls / (time.perf_counter() - started)


async def pipelined(ws: aiohttp.ClientWebSocketResponse, calls: int, window: int) -> float:
    started = time.perf_counter()
    sent = received = 0
    while received < calls:
        while sent < calls and sent - received < window:
            await ws.send_str(json.dumps({"jsonrpc": "2.0", "id": sent, "method": "core.ping", "params": []}))
            sent += 1
        answer = json.loads((await ws.receive()).data)
        assert answer.get("result") == "pong", answer
        received += 1
    return calls / (time.perf_counter() - started)


async def measure(url: str, unix_socket: str | None, key: str, calls: int, window: int) -> None:
    connector = aiohttp.UnixConnector(path=unix_socket) if unix_socket else None
    async with aiohttp.ClientSession(connector=connector) as session, session.ws_connect(url) as ws:
        await ws.send_str(json.dumps({"jsonrpc": "2.0", "id": "login", "method": "auth.login_with_api_key",
                                      "params": [key]}))
        assert json.loads((await ws.receive()).data)["result"] is True
        await sequential(ws, min(calls, 500))  # warm up
        seq = await sequential(ws, calls)
        pipe = await pipelined(ws, calls, window)
    print(f"core.ping sequential: {seq:,.0f} calls/s ({1e6 / seq:,.0f} µs per round trip), {calls} calls")
    print(f"core.ping pipelined (window {window}): {pipe:,.0f} calls/s, {calls} calls")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--window", type=int, default=20, help="calls in flight when pipelining (server limit: 20)")
    parser.add_argument("--via", choices=["tcp", "unix"], default="tcp")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tg-bench-") as tmp:
        env = dict(os.environ, TENGIG_DB=f"{tmp}/results.sqlite3", PYTHONPATH=str(REPO / "middleware"))
        key = ApiKeyStore(f"{tmp}/apikeys.sqlite3").create("bench")[1]
        sock = f"{tmp}/tengig.sock"
        server = subprocess.Popen([sys.executable, "-m", "tengig.cli.main", "serve", "--port", "0",
                                   "--unix-socket", sock], env=env, stderr=subprocess.PIPE, text=True)
        try:
            line = server.stderr.readline()
            if "serving on" not in line:
                print(f"tengig serve did not start: {line}{server.stderr.read()}", file=sys.stderr)
                return 1
            if args.via == "unix":
                url, unix_socket = "ws://localhost/api/current", sock
            else:
                url, unix_socket = line.split("serving on ")[1].split()[0], None
            print(f"tengig serve ({args.via}), one connection, python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
            asyncio.run(measure(url, unix_socket, key, args.calls, args.window))
        finally:
            server.terminate()
            server.wait(timeout=15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
