"""A real ``tengig serve`` for tests: TengigServer on 127.0.0.1 (random port) and a unix socket in a
temporary directory, running on its own event loop thread, with its own results and API key files.
And RawConnection: JSON-RPC frames written and read by hand over aiohttp's websocket client (not
through tengig's client), so the protocol is tested as a stranger sees it."""
from __future__ import annotations

import asyncio
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from tengig.api import Registry
from tengig.server.apikeys import ApiKeyStore
from tengig.server.app import TengigServer
from tengig.systems.seams import Seams

from .demo_services import DemoJobsService

FINAL = ("SUCCESS", "FAILED", "ABORTED")


@dataclass
class RunningServer:
    server: TengigServer
    loop: asyncio.AbstractEventLoop
    api_key: str
    unix_socket: Path
    keys: ApiKeyStore

    @property
    def url(self) -> str:
        return self.server.url

    def run(self, coroutine: Any, timeout: float = 30) -> Any:
        """Run a coroutine on the server's loop (e.g. to inspect its jobs)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)


@contextmanager
def running_server(tmp_path: Path, *, ui_dir: Path | None = None, registry: Registry | None = None,
                   seams: Seams | None = None, login_timeout: float | None = None) -> Iterator[RunningServer]:
    os.environ["TENGIG_DB"] = str(tmp_path / "results.sqlite3")
    keys = ApiKeyStore(tmp_path / "apikeys.sqlite3")
    _, api_key = keys.create("tests")
    # A short directory: unix socket paths are limited to 107 bytes, and pytest's tmp paths are long.
    sock_dir = Path(tempfile.mkdtemp(prefix="tg-"))
    sock_dir.chmod(0o755)  # a non-root peer must be able to reach the socket
    server = TengigServer(host="127.0.0.1", port=0, unix_socket=sock_dir / "tengig.sock", ui_dir=ui_dir,
                          registry=registry or Registry.default(DemoJobsService), seams=seams, api_keys=keys,
                          **({"login_timeout": login_timeout} if login_timeout is not None else {}))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="test-server", daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(60)
    try:
        yield RunningServer(server, loop, api_key, sock_dir / "tengig.sock", keys)
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(grace_seconds=5), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
        sock_dir.rmdir()


@dataclass
class RawConnection:
    ws: aiohttp.ClientWebSocketResponse
    events: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[Any, dict[str, Any]] = field(default_factory=dict)
    next_id: int = 0

    async def send(self, frame: str | dict[str, Any]) -> None:
        await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    async def request(self, method: str, *params: Any) -> Any:
        """Send a request; return its id (answer with ``answer(id)``)."""
        self.next_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": list(params)})
        return self.next_id

    async def call(self, method: str, *params: Any, timeout: float = 120) -> dict[str, Any]:
        """The whole answer frame to one request (result or error)."""
        return await self.answer(await self.request(method, *params), timeout=timeout)

    async def result(self, method: str, *params: Any, timeout: float = 120) -> Any:
        frame = await self.call(method, *params, timeout=timeout)
        assert "result" in frame, f"{method} failed: {frame}"
        return frame["result"]

    async def answer(self, request_id: Any, timeout: float = 120) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while request_id not in self.answers:
                await self._read_one()
        return self.answers.pop(request_id)

    async def next_frame(self, timeout: float = 60) -> dict[str, Any]:
        """The next frame of any kind (answer or notification), without bookkeeping."""
        msg = await self.ws.receive(timeout=timeout)
        assert msg.type == aiohttp.WSMsgType.TEXT, f"expected a text frame, got {msg.type} {msg.data!r}"
        return json.loads(msg.data)

    async def added_job(self, method: str, timeout: float = 120) -> int:
        """The id of the first job of ``method`` this connection saw ADDED. Events of a job started before
        (another test's, ending now on the same server) come on the subscription too, and are passed over."""
        async with asyncio.timeout(timeout):  # a hang guard, not a time limit
            while True:
                for e in self.events:
                    if (e["collection"] == "core.get_jobs" and e["msg"] == "added"
                            and e["fields"]["method"] == method):
                        return e["id"]
                await self._read_one()

    async def job_events(self, job_id: int, timeout: float = 120) -> list[dict[str, Any]]:
        """Every core.get_jobs event of ``job_id`` up to and including its final one."""
        async with asyncio.timeout(timeout):
            while True:
                mine = [e for e in self.events if e["collection"] == "core.get_jobs" and e["id"] == job_id]
                if mine and mine[-1]["msg"] == "changed" and mine[-1]["fields"]["state"] in FINAL:
                    return mine
                await self._read_one()

    async def login(self, api_key: str) -> None:
        answer = await self.result("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "root",
                                                     "api_key": api_key})
        assert answer["response_type"] == "SUCCESS", answer

    async def _read_one(self) -> None:
        frame = await self.next_frame(timeout=120)
        if frame.get("method") == "collection_update":
            self.events.append(frame["params"])
        elif "id" in frame:
            self.answers[frame["id"]] = frame
        else:
            raise AssertionError(f"unexpected frame {frame}")


async def open_raw(url: str, session: aiohttp.ClientSession) -> RawConnection:
    return RawConnection(await session.ws_connect(url))


async def open_unix_raw(path: Path) -> tuple[aiohttp.ClientSession, RawConnection]:
    session = aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=str(path)))
    return session, RawConnection(await session.ws_connect("ws://localhost/api/current"))
