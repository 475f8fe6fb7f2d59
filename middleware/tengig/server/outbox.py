"""One connection's outgoing frames, bounded in bytes, written in order by one writer task.

Answers and events leave in the order they were produced. A client that stops reading makes the
transport's buffer fill (aiohttp then makes the writer wait); the frames behind it wait here, counted
in bytes (JSON is ASCII: one character, one byte). Past ``limit_bytes`` the client is dropped at once
(``on_overflow``), so one slow reader costs the server at most that much memory, never more.
"""
from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

logger = logging.getLogger(__name__)

DEFAULT_LIMIT_BYTES = 4 * 1024 * 1024


class Outbox:
    def __init__(self, send: Callable[[str], Awaitable[None]], on_overflow: Callable[[], None], *,
                 limit_bytes: int = DEFAULT_LIMIT_BYTES, origin: str = ""):
        self._send = send
        self._on_overflow = on_overflow
        self.limit_bytes = limit_bytes
        self.origin = origin
        self.queued_bytes = 0  # queued here plus the frame being written
        self.peak_bytes = 0
        self.overflowed = False
        self._frames: deque[str] = deque()
        self._wake = asyncio.Event()
        self._closed = False

    def put(self, text: str) -> None:
        if self._closed:
            return
        size = len(text)
        if self.queued_bytes + size > self.limit_bytes:
            self.overflowed = True
            self._closed = True
            self._frames.clear()
            logger.warning("dropping %s: it stopped reading (%d bytes waiting, limit %d)",
                           self.origin or "a client", self.queued_bytes + size, self.limit_bytes)
            self._on_overflow()
            self._wake.set()
            return
        self._frames.append(text)
        self.queued_bytes += size
        self.peak_bytes = max(self.peak_bytes, self.queued_bytes)
        self._wake.set()

    def close(self) -> None:
        """No more frames; the writer ends once the queued ones are written."""
        self._closed = True
        self._wake.set()

    async def run(self) -> None:
        """The writer: until closed and empty, or the connection fails."""
        frames = self._frames
        while True:
            if not frames:
                if self._closed:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            text = frames.popleft()
            try:
                await self._send(text)
            except (ConnectionError, RuntimeError):
                self._closed = True
                frames.clear()
                return
            finally:
                self.queued_bytes -= len(text)
