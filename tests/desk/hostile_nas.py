"""A hostile NAS for `tengig client join`: a small websocket server on loopback that speaks the join
protocol (JSON-RPC 2.0 at /api/current, no login) and hands the desktop whatever instructions a test
scripts: another host's address, a file bigger than the desktop's disk, an abort reason with terminal
escapes. It keeps what the desktop submitted (parts put together), so a test reads the refusals.

The desktop is the real command, `tengig client join`, run under strace (execve only): every program it
started is in ``HostileNas.programs()``, so a test shows that no iperf3 or smbclient ran. ``start`` runs it
without strace, as a process a test signals (``signal_and_wait``).

A NAS can also fall silent (``SILENT``: that call gets no answer, and nothing the desktop sends after it is
read, not even its close) or answer
``next`` with null (``None``) as often as asked; ``polls`` holds when each ``next`` came (monotonic s)."""
from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import socket
import threading
import time
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.bench.joined_harness import ARG, EXECVE

REPO = Path(__file__).resolve().parents[2]
TOKEN = "tgb-" + "0123456789abcdef" * 3
SILENT = object()  # no answer to this call, nor to any after it
DONE = object()  # the default answer once the scripted instructions are used: the run is finished


class HostileNas:
    def __init__(self, instructions: list[tuple[str, dict[str, Any]] | Any], *, name: str = "desk",
                 nas_address: str = "127.0.0.1", join_answer: Any = None, then: Any = DONE,
                 sock: socket.socket | None = None):
        """``instructions``: (kind, params) each, or anything else sent as it is (SILENT: no answer); ``join_answer``:
        what join answers instead of a session; ``then``: what ``next`` answers once the instructions are used
        (DONE, None, SILENT); ``sock``: a listening socket to serve on (e.g. one made in a network namespace)
        instead of one on 127.0.0.1."""
        self._ids = itertools.count(1)
        self.instructions = [{"id": next(self._ids), "kind": i[0], "params": i[1]} if isinstance(i, tuple) else i
                             for i in instructions]
        self.then = then
        self.silent = False
        self.polls: list[float] = []
        self._sock = sock
        self.name = name
        self.nas_address = nas_address
        self.join_answer = join_answer
        self.joined: list[dict[str, Any]] = []
        self.submitted: dict[int, dict[str, Any]] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self._woken = asyncio.Event()  # a silent NAS's handlers end when the test is over
        self.url = ""

    # -- the server --------------------------------------------------------------------------------------

    def __enter__(self) -> "HostileNas":
        app = web.Application()
        app.router.add_get("/api/current", self._peer)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0) if self._sock is None else web.SockSite(self._runner, self._sock)
        self._loop.run_until_complete(site.start())
        host, port = site._server.sockets[0].getsockname()[:2]
        self.url = f"ws://{host}:{port}"
        self._thread.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._loop.call_soon_threadsafe(self._woken.set)
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _peer(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for msg in ws:
            call = json.loads(msg.data)
            result = self._answer(call["method"], call["params"])
            if result is SILENT:  # a hung or vanished NAS: nothing read or answered any more, not even a close
                self.silent = True
                await self._woken.wait()
                break
            await ws.send_str(json.dumps({"jsonrpc": "2.0", "id": call["id"], "result": result}))
        return ws

    def _answer(self, method: str, params: list[Any]) -> Any:
        if method == "core.set_options":
            return params[0]
        if method == "tengig.bench.session.join":
            self.joined.append(params[1])
            if self.join_answer is not None:
                return self.join_answer
            return {"session": 7, "name": self.name, "nas_address": self.nas_address}
        if method == "tengig.bench.session.next":
            self.polls.append(time.monotonic())
            if self.instructions:
                return self.instructions.pop(0)
            if self.then is DONE:
                return {"id": next(self._ids), "kind": "done", "params": {}}
            return self.then
        if method == "tengig.bench.session.submit":
            part = params[0]
            before = self.submitted.get(part["instruction"])
            if before is not None:
                part = {**part, "stdout": before["stdout"] + part.get("stdout", ""),
                        "stderr": before["stderr"] + part.get("stderr", "")}
            self.submitted[part["instruction"]] = {"stdout": "", "stderr": "", **part}
            return True
        raise AssertionError(f"the desktop called {method}")

    # -- the desktop -------------------------------------------------------------------------------------

    def join(self, tmp_path: Path, *extra: str, url: str | None = None) -> subprocess.CompletedProcess:
        """`tengig client join` against this NAS, under strace; its output, and its programs in
        ``programs(tmp_path)``."""
        env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'middleware'}"}
        argv = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=execve", "-e", "signal=none", "-s", "256",
                "-o", str(tmp_path / "desk.strace"), sys.executable, "-m", "tengig", "client", "join",
                url or self.url, "--token", TOKEN, "--name", "desk", *extra]
        # its own process group, killed whole on a timeout: strace killed alone would leave a desktop that
        # hangs (the regression a test looks for) running, detached
        with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True) as proc:
            try:
                out, err = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                raise
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def start(self, *extra: str, prefix: tuple[str, ...] = (), env: dict[str, str] | None = None) -> subprocess.Popen:
        """`tengig client join` against this NAS as a process of its own session and process group (a
        terminal's Ctrl-C reaches the whole group), not traced; ``prefix``: e.g. nsenter into a network
        namespace (it execs the command: the process is tengig's)."""
        env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'middleware'}", **(env or {})}
        argv = [*prefix, sys.executable, "-m", "tengig", "client", "join", self.url, "--token", TOKEN,
                "--name", "desk", *extra]
        return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, preexec_fn=_as_from_a_terminal)


def _as_from_a_terminal() -> None:
    """The stop signals as a terminal leaves them to what it starts, whatever the test runner inherited (a
    background job ignores SIGINT, nohup ignores SIGHUP)."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def programs(tmp_path: Path) -> list[str]:
    """Every program `tengig client join` started (successful execve), as its argv joined by spaces;
    the first is the desktop's own Python."""
    out = []
    for line in (tmp_path / "desk.strace").read_text().splitlines():
        m = EXECVE.search(line)
        if m and line.rstrip().endswith("= 0"):
            out.append(" ".join(ARG.findall(m.group(1))))
    return out


def signal_and_wait(desk: subprocess.Popen, signum: int, *, group: bool = True) -> tuple[int, str]:
    """Send ``signum`` to the desktop's process group (a terminal's Ctrl-C or hang-up) or to it alone
    (kill PID); its exit code and what it printed on stderr once it ended."""
    if group:
        os.killpg(desk.pid, signum)
    else:
        desk.send_signal(signum)
    _, err = desk.communicate(timeout=120)
    return desk.returncode, err


def wait_for(condition, what: str, *, limit: float = 60.0) -> None:
    """Until ``condition()`` holds (a generous limit against a hang, not a bound on speed)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not seen within {limit:g} s")
        time.sleep(0.05)
