"""One connection's outgoing frames, bounded in bytes, in order.

A frame goes straight to the socket's transport when nothing is waiting and the transport's buffer
is small (the common case: no task switch per answer). Otherwise it waits here, counted in bytes
(JSON is ASCII: one character, one byte), and one writer task feeds the transport as it drains. Past
``limit_bytes`` waiting, the client is dropped at once (``on_overflow``): one client that stops reading
costs the server at most that much memory (plus the transport's own buffer), never more.

Frames are unmasked, uncompressed websocket text frames (RFC 6455 §5.2), written whole, so they
interleave safely with the control frames aiohttp writes (pong, close) on the same transport.
"""
from __future__ import annotations

import asyncio
import logging
import struct
from collections import deque
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

DEFAULT_LIMIT_BYTES = 4 * 1024 * 1024
TRANSPORT_HIGH_WATER = 64 * 1024  # above this much unsent in the transport, frames wait here


def text_frame(payload: bytes) -> bytes:
    """A final text frame, server to client (no mask). Header and payload go in ONE write: a header
    sent alone would wait out the peer's delayed ACK (Nagle) before the payload, ~40 ms a frame."""
    n = len(payload)
    if n < 126:
        header = bytes((0x81, n))
    elif n < 65536:
        header = struct.pack("!BBH", 0x81, 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 127, n)
    return header + payload


class Outbox:
    def __init__(self, transport: Any, protocol: Any, is_closed: Callable[[], bool], on_overflow: Callable[[], None],
                 *, limit_bytes: int = DEFAULT_LIMIT_BYTES, origin: str = ""):
        self._transport = transport
        self._protocol = protocol
        self._is_closed = is_closed
        self._on_overflow = on_overflow
        self.limit_bytes = limit_bytes
        self.origin = origin
        self.queued_bytes = 0
        self.peak_bytes = 0
        self.overflowed = False
        self._frames: deque[bytes] = deque()
        self._wake = asyncio.Event()
        self._closed = False

    def put(self, text: str) -> None:
        if self._closed or self._is_closed():
            return
        payload = text.encode()
        transport = self._transport
        if not self._frames and transport.get_write_buffer_size() <= TRANSPORT_HIGH_WATER:
            if not transport.is_closing():
                transport.write(text_frame(payload))
            return
        size = len(payload)
        if self.queued_bytes + size > self.limit_bytes:
            self.overflowed = True
            self._closed = True
            self._frames.clear()
            logger.warning("dropping %s: it stopped reading (%d bytes waiting, limit %d)",
                           self.origin or "a client", self.queued_bytes + size, self.limit_bytes)
            self._on_overflow()
            self._wake.set()
            return
        self._frames.append(payload)
        self.queued_bytes += size
        self.peak_bytes = max(self.peak_bytes, self.queued_bytes)
        self._wake.set()

    def close(self) -> None:
        """No more frames; the writer ends once the waiting ones are written (or the peer is gone)."""
        self._closed = True
        self._wake.set()

    async def run(self) -> None:
        """The writer: feeds waiting frames to the transport as it drains."""
        frames, transport = self._frames, self._transport
        while True:
            if not frames:
                if self._closed:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            if transport.is_closing() or self._is_closed():
                frames.clear()
                self.queued_bytes = 0
                return
            if transport.get_write_buffer_size() > TRANSPORT_HIGH_WATER:
                try:
                    await self._protocol._drain_helper()  # aiohttp's: returns once the transport resumes writing
                except (ConnectionError, RuntimeError):
                    frames.clear()
                    return
                continue
            payload = frames.popleft()
            self.queued_bytes -= len(payload)
            transport.write(text_frame(payload))
