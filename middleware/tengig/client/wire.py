"""The two ways middlewared frames a conversation, behind one small interface the Client uses.

- ``JsonRpcWire``: JSON-RPC 2.0 at ``/api/current`` (TrueNAS 25.04+, tengig's own host).
- ``LegacyWire``: the DDP-like protocol at ``/websocket`` (TrueNAS 24.10 and CORE 13.x, the only one they
  speak): a ``connect`` handshake, ``{"msg": "method"}`` calls answered by ``{"msg": "result"}``,
  subscriptions by ``{"msg": "sub"}`` answered ``{"msg": "ready"}``, events as bare
  ``{"msg": "added|changed|removed", "collection", "id", "fields"}`` frames.

Each wire turns an incoming frame into an ``Incoming`` in one common shape (answers as JSON-RPC 2.0
answers, events as collection_update params), so the Client and ClientError only know one shape.
Legacy errors become JSON-RPC errors here: type VALIDATION -> -32602 with errno EINVAL (24.10 sends
EAGAIN for a ValidationErrors, an accident of its error path: callers compare one number), everything
else -> -32001 with the server's errno.
"""
from __future__ import annotations

import errno
from dataclasses import dataclass, field
from typing import Any

from .errors import CALL_ERROR, INVALID_PARAMS

JSONRPC_PATH = "/api/current"
LEGACY_PATH = "/websocket"


@dataclass
class Incoming:
    """kind: 'answer' (id, answer in JSON-RPC shape), 'event' (event params), 'ready' (subscription ids
    acknowledged), 'connected', 'failed', or 'other' (ignored)."""

    kind: str
    id: Any = None
    answer: dict[str, Any] = field(default_factory=dict)
    event: dict[str, Any] = field(default_factory=dict)
    subs: list[str] = field(default_factory=list)


class JsonRpcWire:
    name = "jsonrpc"
    path = JSONRPC_PATH
    subscribes_by_call = True  # core.subscribe / core.unsubscribe are ordinary calls

    def hello(self) -> dict[str, Any] | None:
        return None

    def request(self, call_id: Any, method: str, params: list[Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": call_id, "method": method, "params": params}

    def parse(self, message: dict[str, Any]) -> Incoming:
        if message.get("method") == "collection_update":
            return Incoming("event", event=message.get("params") or {})
        if "id" in message:
            return Incoming("answer", id=message["id"], answer=message)
        return Incoming("other")


class LegacyWire:
    name = "legacy"
    path = LEGACY_PATH
    subscribes_by_call = False  # sub/unsub frames instead

    def hello(self) -> dict[str, Any] | None:
        return {"msg": "connect", "version": "1", "support": ["1"]}

    def request(self, call_id: Any, method: str, params: list[Any]) -> dict[str, Any]:
        return {"id": call_id, "msg": "method", "method": method, "params": params}

    def sub(self, ident: str, name: str) -> dict[str, Any]:
        return {"msg": "sub", "id": ident, "name": name}

    def unsub(self, ident: str) -> dict[str, Any]:
        return {"msg": "unsub", "id": ident}

    def parse(self, message: dict[str, Any]) -> Incoming:
        kind = message.get("msg")
        if kind == "result":
            if "error" in message:
                return Incoming("answer", id=message.get("id"), answer={
                    "id": message.get("id"), "error": legacy_error_as_jsonrpc(message["error"] or {}),
                })
            return Incoming("answer", id=message.get("id"), answer={"id": message.get("id"),
                                                                     "result": message.get("result")})
        if kind in ("added", "changed", "removed"):
            return Incoming("event", event={key: message.get(key) for key in ("msg", "collection", "id", "fields")})
        if kind == "ready":
            return Incoming("ready", subs=[str(s) for s in message.get("subs") or []])
        if kind == "nosub":
            return Incoming("answer", id=message.get("id"), answer={"id": message.get("id"), "error": {
                "code": CALL_ERROR, "message": "subscription refused",
                "data": {"error": errno.ENOENT, "reason": f"no such event {message.get('collection')!r}"},
            }})
        if kind in ("connected", "failed"):
            return Incoming(kind)
        return Incoming("other")


def legacy_error_as_jsonrpc(error: dict[str, Any]) -> dict[str, Any]:
    validation = error.get("type") == "VALIDATION"
    number = errno.EINVAL if validation else error.get("error")
    return {
        "code": INVALID_PARAMS if validation else CALL_ERROR,
        "message": "Invalid params" if validation else "Method call error",
        "data": {"error": number, "errname": "EINVAL" if validation else error.get("errname"),
                 "reason": error.get("reason"), "trace": error.get("trace"), "extra": error.get("extra")},
    }


def wire_for(uri: str, protocol: str | None = None) -> JsonRpcWire | LegacyWire:
    """The wire named by ``protocol`` ('jsonrpc' | 'legacy'), else the one the URI's path says."""
    if protocol is None:
        protocol = "legacy" if uri.rstrip("/").endswith(LEGACY_PATH) else "jsonrpc"
    if protocol == "legacy":
        return LegacyWire()
    if protocol == "jsonrpc":
        return JsonRpcWire()
    raise ValueError(f"protocol must be 'jsonrpc' or 'legacy', not {protocol!r}")
