"""``tengig serve``: the aiohttp host. JSON-RPC 2.0 over websocket at /api/current and middlewared's
legacy protocol at /websocket (TCP and a unix socket), the panel's static files at /, and a clean
stop that aborts running jobs.

Frames are capped as middlewared caps them: 8 KiB before login (close 1007), 64 KiB after (close 1009),
both counted in bytes on the wire (a character may take four).
Each connection has one writer task draining its outbox (outbox.py), so answers and events leave in
the order they were produced; a client far behind on its answers is read no further until it catches
up, and one that stops reading is dropped (outbox.py has both bounds).

Nobody holds a socket for free: an HTTP connection must send a complete request within
``header_timeout`` s (idle sockets and slow headers are closed: aiohttp's keep-alive timer runs from the
connection's start), a websocket must log in (or join a benchmark run with its token) within
``login_timeout`` s (root on the unix socket is logged in at once), and a logged-in peer that stops answering websocket pings is dropped. At start the
soft open-file limit is raised to the hard one.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from ..api.registry import Registry
from ..errors import TengigError
from ..panel_files import panel_dir, panel_file
from ..systems.seams import Seams
from .apikeys import ApiKeyStore
from .dispatcher import Dispatcher
from .host import ServerMiddleware
from .legacy import PATH as LEGACY_PATH
from .legacy import LegacySession, handle_legacy_frame
from .outbox import DEFAULT_LIMIT_BYTES, DEFAULT_STALL_SECONDS, Outbox
from .peercred import peer_credentials
from .security_headers import add_security_headers
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
OUTBOX_LIMIT_BYTES = DEFAULT_LIMIT_BYTES
HEADER_TIMEOUT_SECONDS = 15.0
LOGIN_TIMEOUT_SECONDS = 30.0
HEARTBEAT_SECONDS = 60.0
SHUTDOWN_GRACE_SECONDS = 10.0
LISTEN_BACKLOG = 1024  # a thousand clients connecting at once are queued, not refused


class TengigServer:
    def __init__(
        self,
        *,
        host: str | None = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        unix_socket: Path | None = DEFAULT_UNIX_SOCKET,
        ui_dir: Path | None = DEFAULT_UI_DIR,
        registry: Registry | None = None,
        seams: Seams | None = None,
        api_keys: ApiKeyStore | None = None,
        protocol: str = "jsonrpc",
        header_timeout: float = HEADER_TIMEOUT_SECONDS,
        login_timeout: float = LOGIN_TIMEOUT_SECONDS,
        heartbeat: float = HEARTBEAT_SECONDS,
        outbox_limit_bytes: int = OUTBOX_LIMIT_BYTES,
        outbox_stall_seconds: float = DEFAULT_STALL_SECONDS,
        sweep_orphans: bool = True,
    ):
        """``protocol`` "jsonrpc": JSON-RPC 2.0 at /api/current (tengig, TrueNAS 25.04+) and the legacy
        protocol at /websocket, as middlewared 25.x serves both; "legacy": /websocket only (TrueNAS 24.10
        and CORE; server/legacy.py), for stand-ins. ``seams``: where the services act (tengig.systems.seams),
        given to every service of ``registry`` (default: the registry's own, the real ones).
        ``sweep_orphans``: at start, mark aborted the runs a killed process left running (`tengig serve`;
        a command hosting its own run, `tengig bench`, leaves that to it and opens no database first)."""
        if protocol not in ("jsonrpc", "legacy"):
            raise ValueError(f"protocol must be 'jsonrpc' or 'legacy', not {protocol!r}")
        self.protocol = protocol
        self.api_path = API_PATH if protocol == "jsonrpc" else LEGACY_PATH
        self.host, self.port, self.unix_socket, self.ui_dir = host, port, unix_socket, ui_dir
        self.header_timeout, self.login_timeout, self.heartbeat = header_timeout, login_timeout, heartbeat
        self.outbox_limit_bytes = outbox_limit_bytes
        self.outbox_stall_seconds = outbox_stall_seconds
        self.sweep_orphans = sweep_orphans
        keys = api_keys or ApiKeyStore()
        registry = registry or Registry.default()
        if seams is not None:
            registry = registry.with_seams(seams)
        self.middleware = ServerMiddleware(registry, keys)
        self.dispatcher = Dispatcher(self.middleware)
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self.dropped_slow_clients = 0
        self.login_timeouts = 0

    # -- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind TCP (port 0: any free port, then ``self.port`` is the real one) and the unix socket."""
        _raise_open_file_limit()
        if self.sweep_orphans:
            _abort_orphaned_runs()
        app = web.Application()
        app.on_response_prepare.append(add_security_headers)
        if self.protocol == "jsonrpc":
            app.router.add_get(API_PATH, self._websocket)
        app.router.add_get(LEGACY_PATH, self._legacy_websocket)
        app.router.add_get("/{path:.*}", self._static)
        # keepalive_timeout runs from the connection's start: a socket that never completes a request
        # (idle, or headers trickled in) is closed after header_timeout.
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None,
                                     keepalive_timeout=self.header_timeout)
        await self._runner.setup()
        await self.middleware.revocation.start()  # before any session can log in
        if self.host is not None:
            sock = _bound_tcp_socket(self.host, self.port)
            self.port = sock.getsockname()[1]  # the real port when 0 (any free port) was asked
            await web.SockSite(self._runner, sock, backlog=LISTEN_BACKLOG).start()
        if self.unix_socket is not None:
            _clear_stale_socket(self.unix_socket)
            self.unix_socket.parent.mkdir(parents=True, exist_ok=True)
            await web.UnixSite(self._runner, str(self.unix_socket), backlog=LISTEN_BACKLOG).start()
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
        await self.middleware.revocation.stop()
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

    @property
    def legacy_url(self) -> str:
        return f"ws://{self.host}:{self.port}{LEGACY_PATH}"

    @property
    def connections(self) -> int:
        """Open HTTP connections (websockets included)."""
        server = self._runner.server if self._runner is not None else None
        return len(server.connections) if server is not None else 0

    # -- handlers -----------------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        return await self._serve_websocket(request, Session)

    async def _legacy_websocket(self, request: web.Request) -> web.StreamResponse:
        return await self._serve_websocket(request, LegacySession)

    async def _serve_websocket(self, request: web.Request, session_class: type[Session]) -> web.StreamResponse:
        transport = request.transport
        ws = web.WebSocketResponse(max_msg_size=AUTHENTICATED_FRAME_LIMIT, heartbeat=self.heartbeat or None,
                                   compress=False)
        await ws.prepare(request)
        peer = peer_credentials(transport)
        origin = _origin(request, peer)

        def drop(reason: str) -> None:
            if not ws.closed:
                asyncio.ensure_future(_close(ws, transport, reason))

        def overflow() -> None:
            self.dropped_slow_clients += 1
            if transport is not None:
                transport.abort()  # its buffers are what we are protecting: no close handshake

        outbox = Outbox(transport, request.protocol, lambda: ws.closed, overflow,
                        limit_bytes=self.outbox_limit_bytes, soft_bytes=min(self.outbox_limit_bytes // 4, 1 << 20),
                        stall_seconds=self.outbox_stall_seconds, origin=origin)
        session = session_class(outbox.put, origin=origin, unix_uid=peer.uid if peer else None,
                                source=f"uid {peer.uid}" if peer else str(request.remote), disconnect=drop)
        if peer is None and transport is not None:  # TCP: both ends' addresses (a bench client's link)
            session.peer_address = _address(transport.get_extra_info("peername"))
            session.local_address = _address(transport.get_extra_info("sockname"))
        if peer is not None and peer.uid == 0:
            session.credentials = Credentials("UNIX_SOCKET", "root", {"pid": peer.pid})
        self._sockets.add(ws)
        self.middleware.events.register(session)
        writer = asyncio.ensure_future(outbox.run())
        login_deadline = asyncio.get_running_loop().call_later(self.login_timeout, self._login_timeout, session)
        try:
            async for msg in ws:
                await outbox.room()  # a client far behind on its answers sends its next request later
                if outbox.overflowed:
                    break
                if msg.type == WSMsgType.TEXT:
                    if not session.authenticated and _over_anonymous_limit(msg.data):
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
            login_deadline.cancel()
            self.dispatcher.close_session(session)
            self.middleware.events.unregister(session)
            self._sockets.discard(ws)
            outbox.close()
            await asyncio.wait({writer}, timeout=5)
            writer.cancel()
        return ws

    def _login_timeout(self, session: Session) -> None:
        # a desktop that joined a benchmark run never logs in: it stays for as long as the run needs it
        if not session.authenticated and session.bench_client is None and not session.closed:
            self.login_timeouts += 1
            session.disconnect("no login within the time allowed")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        """The built panel; plain-text 404s (no JSON: this is not the API) for anything that is not
        plainly one of its files (panel_files.panel_file decides)."""
        if self.ui_dir is None or not (self.ui_dir / "index.html").is_file():
            return web.Response(status=404, text="the tengig panel is not built (ui/dist is missing); run `make setup`\n")
        target = panel_file(self.ui_dir, request.match_info["path"])
        if target is None:
            return web.Response(status=404, text="not found\n")
        return web.FileResponse(target)


async def _close(ws: web.WebSocketResponse, transport, reason: str) -> None:
    """Close with a reason; a peer that does not take the close frame is cut off."""
    try:
        await asyncio.wait_for(ws.close(code=WSCloseCode.POLICY_VIOLATION, message=reason.encode()[:120]), 5)
    except (asyncio.TimeoutError, ConnectionError, RuntimeError):
        if transport is not None:
            transport.abort()


def _over_anonymous_limit(text: str) -> bool:
    """More bytes than a connection that has not logged in may send in one frame. Only a frame with
    non-ASCII text is encoded to count them (str.isascii reads a flag; characters <= bytes)."""
    return len(text) > UNAUTHENTICATED_FRAME_LIMIT or \
        (not text.isascii() and len(text.encode()) > UNAUTHENTICATED_FRAME_LIMIT)


def _abort_orphaned_runs() -> None:
    """Runs left 'running' by a process that was killed are marked aborted, once, at start."""
    from ..results.store import ResultStore

    try:
        orphans = ResultStore().abort_orphaned_runs()
    except TengigError as exc:
        logger.warning("could not check the results database for runs left running: %s", exc)
        return
    if orphans:
        logger.warning("marked %d run(s) aborted that a killed process had left running: %s", len(orphans),
                       ", ".join(map(str, orphans)))


def _raise_open_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 1 << 20, hard))
        except (ValueError, OSError):
            pass


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


def _address(name: Any) -> str | None:
    """An (address, port, ...) tuple -> the address, IPv4-mapped IPv6 as plain IPv4."""
    if not isinstance(name, tuple) or not name:
        return None
    address = str(name[0])
    return address.removeprefix("::ffff:") if address.startswith("::ffff:") and "." in address else address
