"""``tengig serve``: the aiohttp host. JSON-RPC 2.0 over websocket at /api/current (TCP and a unix
socket), the panel's static files at /, and a clean stop that aborts running jobs.

Frames are capped as middlewared caps them: 8 KiB before login (close 1007), 64 KiB after (close 1009).
Each connection has one writer task draining its outbox, so answers and events leave in the order
they were produced; a client that stops reading is dropped once MAX_OUTBOX messages pile up.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path

from aiohttp import WSCloseCode, WSMsgType, web

from ..api.registry import Registry
from ..errors import TengigError
from ..panel_files import panel_dir
from .apikeys import ApiKeyStore
from .dispatcher import Dispatcher
from .host import ServerMiddleware
from .legacy import PATH as LEGACY_PATH
from .legacy import LegacySession, handle_legacy_frame
from .peercred import peer_credentials
from .session import Credentials, Session

logger = logging.getLogger(__name__)

API_PATH = "/api/current"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8610
DEFAULT_UNIX_SOCKET = Path("/run/tengig/tengig.sock")
# The built panel where this tengig finds it (packaged in the wheel, else the checkout's ui/dist; None:
# not built). `tengig serve` and the demo look again when they start, so a panel built later is served.
DEFAULT_UI_DIR = panel_dir()
UNAUTHENTICATED_FRAME_LIMIT = 8192
AUTHENTICATED_FRAME_LIMIT = 65536
MAX_OUTBOX = 10_000
SHUTDOWN_GRACE_SECONDS = 10.0


class TengigServer:
    def __init__(
        self,
        *,
        host: str | None = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        unix_socket: Path | None = DEFAULT_UNIX_SOCKET,
        ui_dir: Path | None = DEFAULT_UI_DIR,
        registry: Registry | None = None,
        api_keys: ApiKeyStore | None = None,
        protocol: str = "jsonrpc",
    ):
        """``protocol`` "jsonrpc": JSON-RPC 2.0 at /api/current (tengig, TrueNAS 25.04+); "legacy": the
        DDP-like protocol at /websocket (TrueNAS 24.10 and CORE; server/legacy.py), for stand-ins."""
        if protocol not in ("jsonrpc", "legacy"):
            raise ValueError(f"protocol must be 'jsonrpc' or 'legacy', not {protocol!r}")
        self.protocol = protocol
        self.api_path = API_PATH if protocol == "jsonrpc" else LEGACY_PATH
        self.host, self.port, self.unix_socket, self.ui_dir = host, port, unix_socket, ui_dir
        self.middleware = ServerMiddleware(registry or Registry.default(), api_keys or ApiKeyStore())
        self.dispatcher = Dispatcher(self.middleware)
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()

    # -- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind TCP (port 0: any free port, then ``self.port`` is the real one) and the unix socket."""
        app = web.Application()
        app.router.add_get(self.api_path, self._websocket)
        app.router.add_get("/{path:.*}", self._static)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        if self.host is not None:
            sock = _bound_tcp_socket(self.host, self.port)
            self.port = sock.getsockname()[1]  # the real port when 0 (any free port) was asked
            await web.SockSite(self._runner, sock).start()
        if self.unix_socket is not None:
            _clear_stale_socket(self.unix_socket)
            self.unix_socket.parent.mkdir(parents=True, exist_ok=True)
            await web.UnixSite(self._runner, str(self.unix_socket)).start()
            # Anyone local may connect (as to middlewared's socket); only uid 0 is trusted without a key.
            os.chmod(self.unix_socket, 0o666)

    async def stop(self, grace_seconds: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Abort every job (waiting up to ``grace_seconds`` for them), close every connection, unbind."""
        left = await self.middleware.shutdown(grace_seconds)
        for job in left:
            logger.error("job %s (%s) did not stop within %.0f s of its abort", job.id, job.method, grace_seconds)
        for ws in list(self._sockets):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")
        if self._runner is not None:
            await self._runner.cleanup()
        if self.unix_socket is not None and self.unix_socket.is_socket():
            self.unix_socket.unlink()

    async def serve_until_signalled(self, on_started: Callable[["TengigServer"], None] | None = None) -> None:
        """Start, tell ``on_started``, run until SIGTERM or SIGINT, stop."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await self.start()
        if on_started is not None:
            on_started(self)
        await stop.wait()
        await self.stop()

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}{self.api_path}"

    # -- handlers -----------------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=AUTHENTICATED_FRAME_LIMIT)
        await ws.prepare(request)
        peer = peer_credentials(request.transport)
        outbox: asyncio.Queue[str | None] = asyncio.Queue()
        session_class = LegacySession if self.protocol == "legacy" else Session
        session = session_class(lambda text: _enqueue(ws, outbox, text), origin=_origin(request, peer),
                                unix_uid=peer.uid if peer else None)
        if peer is not None and peer.uid == 0:
            session.credentials = Credentials("UNIX_SOCKET", "root", {"pid": peer.pid})
        self._sockets.add(ws)
        self.middleware.events.register(session)
        writer = asyncio.ensure_future(_drain(ws, outbox))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    if not session.authenticated and len(msg.data) > UNAUTHENTICATED_FRAME_LIMIT:
                        await ws.close(code=WSCloseCode.INVALID_TEXT,
                                       message=b"Anonymous connection max message length is 8 kB")
                        break
                    if isinstance(session, LegacySession):
                        handle_legacy_frame(self.dispatcher, session, msg.data)
                    else:
                        self.dispatcher.handle_frame(session, msg.data)
                elif msg.type == WSMsgType.BINARY:
                    await ws.close(code=WSCloseCode.UNSUPPORTED_DATA, message=b"Only text frames are supported")
                    break
        finally:
            self.dispatcher.close_session(session)
            self.middleware.events.unregister(session)
            self._sockets.discard(ws)
            outbox.put_nowait(None)
            await asyncio.wait({writer}, timeout=5)
            writer.cancel()
        return ws

    async def _static(self, request: web.Request) -> web.StreamResponse:
        """The built panel; plain-text 404s (no JSON: this is not the API)."""
        if self.ui_dir is None or not (self.ui_dir / "index.html").is_file():
            return web.Response(status=404, text="the tengig panel is not built (ui/dist is missing); run `make setup`\n")
        relative = request.match_info["path"] or "index.html"
        root = self.ui_dir.resolve()
        target = (root / relative).resolve()
        if root != target and root not in target.parents or not target.is_file():
            return web.Response(status=404, text=f"not found: /{relative}\n")
        return web.FileResponse(target)


def _enqueue(ws: web.WebSocketResponse, outbox: "asyncio.Queue[str | None]", text: str) -> None:
    if outbox.qsize() >= MAX_OUTBOX:
        if not ws.closed:
            logger.warning("dropping a client that stopped reading (%d messages queued)", MAX_OUTBOX)
            asyncio.ensure_future(ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"client too slow"))
        return
    outbox.put_nowait(text)


async def _drain(ws: web.WebSocketResponse, outbox: "asyncio.Queue[str | None]") -> None:
    while (text := await outbox.get()) is not None:
        if ws.closed:
            continue
        try:
            await ws.send_str(text)
        except (ConnectionError, RuntimeError):
            return


def _origin(request: web.Request, peer) -> str:
    if peer is not None:
        return f"unix pid={peer.pid} uid={peer.uid}"
    return f"tcp {request.remote}"


def _bound_tcp_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise TengigError(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port", errno=exc.errno) \
            from exc
    return sock


def _clear_stale_socket(path: Path) -> None:
    """Remove a socket file left by a server that died; refuse to take over a live one."""
    if not path.exists():
        return
    if not path.is_socket():
        raise TengigError(f"{path} exists and is not a socket; remove it or choose another --unix-socket",
                          errno=errno.EEXIST)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        path.unlink()
        return
    finally:
        probe.close()
    raise TengigError(f"another server is listening on {path}; stop it or choose another --unix-socket",
                      errno=errno.EADDRINUSE)
