"""One connection's outgoing frames, bounded in bytes, in order.

A frame goes straight to the socket's transport when nothing is waiting and the transport's buffer
is small (the common case: no task switch per answer). Otherwise it waits here, counted in bytes
(JSON is ASCII: one character, one byte), and one writer task feeds the transport as it drains.

Two bounds, for two kinds of client:
- A client that reads, only slower than it asks (100 ``core.get_methods`` pipelined on a busy machine),
  is slowed, never dropped: past ``soft_bytes`` waiting, the connection's reader waits in ``room()``
  before taking its next request, so TCP pushes back on the client as it would on any server.
- A client that stops reading is dropped (``on_overflow``): when ``room()`` has seen no frame leave for
  ``stall_seconds``, or at once when frames nobody asked for in this read (events, answers already in
  flight) pass ``limit_bytes``. Either way it costs the server at most ``limit_bytes`` (plus the
  transport's own buffer), never more.

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

# Room for the soft bound plus every call a connection may have in flight (server/session.py: 20) answered
# at once with a large answer (core.get_methods: about 240 KB): 4 MiB was not, and dropped a client that read.
DEFAULT_LIMIT_BYTES = 16 * 1024 * 1024
DEFAULT_SOFT_BYTES = 1024 * 1024  # above this much waiting, the connection takes no new request
DEFAULT_STALL_SECONDS = 30.0  # the reader waited this long without one frame leaving: the client stopped reading
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
                 *, limit_bytes: int = DEFAULT_LIMIT_BYTES, soft_bytes: int = DEFAULT_SOFT_BYTES,
                 stall_seconds: float = DEFAULT_STALL_SECONDS, origin: str = ""):
        if not 0 < soft_bytes <= limit_bytes:
            raise ValueError(f"soft_bytes must be between 1 and limit_bytes ({limit_bytes}), not {soft_bytes}")
        self._transport = transport
        self._protocol = protocol
        self._is_closed = is_closed
        self._on_overflow = on_overflow
        self.limit_bytes = limit_bytes
        self.soft_bytes = soft_bytes
        self.stall_seconds = stall_seconds
        self.origin = origin
        self.queued_bytes = 0
        self.peak_bytes = 0
        self.overflowed = False
        self._frames: deque[bytes] = deque()
        self._wake = asyncio.Event()
        self._sent = asyncio.Event()  # set by the writer each time a waiting frame leaves
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
            self._drop(f"{self.queued_bytes + size} bytes waiting, limit {self.limit_bytes}")
            return
        self._frames.append(payload)
        self.queued_bytes += size
        self.peak_bytes = max(self.peak_bytes, self.queued_bytes)
        self._wake.set()

    async def room(self) -> None:
        """Returns once at most ``soft_bytes`` wait (at once, nearly always). A client that reads slowly
        is simply waited for; one from which no frame leaves for ``stall_seconds`` is dropped."""
        while self.queued_bytes > self.soft_bytes and not self._closed:
            self._sent.clear()
            try:
                await asyncio.wait_for(self._sent.wait(), self.stall_seconds)
            except asyncio.TimeoutError:
                self._drop(f"no frame left in {self.stall_seconds:g} s, {self.queued_bytes} bytes waiting")

    def _drop(self, why: str) -> None:
        self.overflowed = True
        self._closed = True
        self._frames.clear()
        self.queued_bytes = 0
        logger.warning("dropping %s: it stopped reading (%s)", self.origin or "a client", why)
        self._on_overflow()
        self._wake.set()
        self._sent.set()

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
            self._sent.set()
