"""One client connection's state: who it is, its options, its subscriptions, its call limit.

Transport-free: the websocket layer gives it a ``send_text`` function; tests give it a list's append.
"""
from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import rpc

logger = logging.getLogger(__name__)

# middlewared's per-connection limits (SoftHardSemaphore(10, 20)): 10 calls run at once, and at most 20
# are in flight (running + waiting); the 21st is refused with -32000.
RUNNING_CALLS = 10
CALLS_IN_FLIGHT = 20


class TooManyCalls(Exception):
    def __init__(self, limit: int):
        super().__init__(f"Maximum number of concurrent calls ({limit}) has exceeded")


class CallLimit:
    """Admits ``running`` calls at once, queues the rest up to ``in_flight`` in total, refuses more."""

    def __init__(self, running: int = RUNNING_CALLS, in_flight: int = CALLS_IN_FLIGHT):
        self.in_flight_limit = in_flight
        self._running = asyncio.Semaphore(running)
        self.in_flight = 0

    async def __aenter__(self) -> None:
        if self.in_flight >= self.in_flight_limit:
            raise TooManyCalls(self.in_flight_limit)
        self.in_flight += 1
        try:
            await self._running.acquire()
        except BaseException:
            self.in_flight -= 1
            raise

    async def __aexit__(self, *exc_info: Any) -> None:
        self.in_flight -= 1
        self._running.release()


@dataclass
class Credentials:
    """Who a session is, in middlewared's job-dict shape ({"type": ..., "data": {...}})."""

    kind: str  # "API_KEY" | "UNIX_SOCKET"
    username: str
    detail: dict[str, Any] = field(default_factory=dict)

    def dump(self) -> dict[str, Any]:
        return {"type": self.kind, "data": {"username": self.username, **self.detail}}


class Session:
    def __init__(self, send_text: Callable[[str], None], *, origin: str, unix_uid: int | None = None,
                 source: str | None = None, disconnect: Callable[[str], None] | None = None):
        self.id = str(uuid.uuid4())
        self.origin = origin
        self.source = source or origin  # who the login back-off counts against (an address, a uid)
        self._disconnect = disconnect
        self.unix_uid = unix_uid
        self.credentials: Credentials | None = None
        self.legacy_jobs = True  # middlewared's default; the official client turns it off on connect
        self.private_methods = False
        self.py_exceptions = False  # never pickles exceptions to a client; accepted for compatibility
        self.subscriptions: dict[str, str] = {}  # subscription id -> event name
        self.limit = CallLimit()
        self.closed = False
        self.peer_address: str | None = None  # TCP: the client's address; the NAS's own below
        self.local_address: str | None = None
        self.bench_session: Any = None  # a bench session this connection joined (api/services/bench_session.py)
        self.bench_client: Any = None  # ... as this desktop
        self._on_close: list[Callable[[], None]] = []
        self._send_text = send_text

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the connection closes (a joined desktop is gone from its run at once)."""
        self._on_close.append(callback)

    def closing(self) -> None:
        """The connection closed: every on_close callback, once."""
        callbacks, self._on_close = self._on_close, []
        for callback in callbacks:
            callback()

    @property
    def authenticated(self) -> bool:
        return self.credentials is not None

    @property
    def api_key_id(self) -> int | None:
        """The id of the API key this session logged in with, if it did."""
        if self.credentials is None or self.credentials.kind != "API_KEY":
            return None
        return self.credentials.detail.get("api_key", {}).get("id")

    def disconnect(self, reason: str) -> None:
        """End the connection (a revoked key, a timeout); its calls stop, its jobs go on."""
        self.credentials = None
        self.subscriptions.clear()
        if self._disconnect is not None:
            self._disconnect(reason)

    def wants(self, event: str) -> bool:
        return self.authenticated and any(name in (event, "*") for name in self.subscriptions.values())

    wire = "jsonrpc"  # which encoding send() and encode_event() produce; the legacy session overrides both

    def encode_event(self, msg: str, collection: str, item_id: Any, fields: dict[str, Any] | None) -> str:
        """One event as this session's protocol writes it (serialized once per protocol by the EventHub)."""
        return rpc.dumps(rpc.collection_update(msg, collection, item_id, fields))

    def send(self, message: dict[str, Any]) -> None:
        """Serialize and send. A message that cannot be JSON (a NaN, an odd type) becomes a -32603
        answer to the same id: the client learns of it instead of waiting forever."""
        try:
            text = rpc.dumps(message)
        except (TypeError, ValueError) as exc:
            logger.error("cannot serialize a message to %s: %s", self.origin, exc)
            text = rpc.dumps(rpc.error(
                message.get("id"), rpc.INTERNAL_ERROR, "Failed to JSON serialize server message",
                rpc.truenas_error(14, str(exc)),  # EFAULT, as middlewared answers it
            ))
        self.send_text(text)

    def send_text(self, text: str) -> None:
        if not self.closed:
            self._send_text(text)
