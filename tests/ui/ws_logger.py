"""A websocket server on another loopback port that records whatever reaches it: the host a hostile link
would point the panel at (`?api=ws://...`, issue 23). It answers nothing and closes a socket after its
first frame, so a page that did reach it shows an error at once instead of waiting out its timeout."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from .served import serving


@dataclass
class WsLogger:
    port: int = 0
    connections: list[str] = field(default_factory=list)  # the path of each websocket opened
    frames: list[str] = field(default_factory=list)  # every text frame received, as sent
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        """Where a link would send the panel: the same path as the real API, on this port."""
        return f"ws://127.0.0.1:{self.port}/api/current"

    def received(self) -> tuple[list[str], list[str]]:
        """(connections, frames) so far."""
        with self.lock:
            return list(self.connections), list(self.frames)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        with self.lock:
            self.connections.append(request.path)
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                with self.lock:
                    self.frames.append(msg.data)
            break
        await ws.close()
        return ws


@contextmanager
def ws_logger() -> Iterator[WsLogger]:
    logger = WsLogger()
    app = web.Application()
    app.router.add_get("/{path:.*}", logger.handle)
    with serving(app) as port:
        logger.port = port
        yield logger
