"""The legacy DDP-like protocol middlewared speaks at ``/websocket`` (the only one up to TrueNAS 24.10,
and on CORE 13.x), served from the same Dispatcher as JSON-RPC 2.0:

    -> {"msg": "connect", "version": "1", "support": ["1"]}     <- {"msg": "connected", "session": ID}
    -> {"id": I, "msg": "method", "method": M, "params": [...]}  <- {"id": I, "msg": "result", "result": R}
                                                                 or {"id": I, "msg": "result", "error": {...}}
    -> {"msg": "sub", "id": S, "name": EVENT}                    <- {"msg": "ready", "subs": [S]}
    -> {"msg": "unsub", "id": S}
    -> {"msg": "ping", "id": P}                                  <- {"msg": "pong", "id": P}
    events                                                       <- {"msg": "added|changed|removed",
                                                                     "collection": EVENT, "id": .., "fields": {..}}

Errors are ``{"error": errno, "errname", "type", "reason", "trace", "extra"}``. As 24.10's main.py does,
a ValidationErrors answer has type "VALIDATION" and errno EAGAIN (11, not EINVAL), with ``extra`` the
[field, message, errno] list, and a ``trace`` (the official legacy client raises ValidationErrors only
when there is one): its class and the message, never frames of tengig's code; an unknown method is errno ENOMETHOD (201). A job method answers its job
id at once (24.10 has no ``legacy_jobs`` option) and ends through core.get_jobs events. Anything sent
before the connect handshake, and any frame that is not a JSON object (NaN, nesting too deep to parse),
is answered ``{"msg": "failed", "version": "1"}``.
"""
from __future__ import annotations

import errno
import logging
from typing import Any

from ..api.exceptions import ENOMETHOD, errname
from . import rpc
from .events import EVENTS
from .session import Session

logger = logging.getLogger(__name__)

PATH = "/websocket"
PROTOCOL_VERSION = "1"
# JSON-RPC codes the Dispatcher answers with no TrueNAS data, as the legacy errno that 24.10 sends instead.
_ERRNO_OF_CODE = {
    rpc.METHOD_NOT_FOUND: ENOMETHOD,
    rpc.TOO_MANY_CONCURRENT_CALLS: errno.ETOOMANYREFS,
    rpc.INVALID_REQUEST: errno.EINVAL,
    rpc.INVALID_JSON: errno.EINVAL,
}


class LegacySession(Session):
    """A /websocket connection: the Dispatcher's JSON-RPC answers leave as legacy frames."""

    wire = "legacy"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.handshake = False

    def encode_event(self, msg: str, collection: str, item_id: Any, fields: dict[str, Any] | None) -> str:
        event: dict[str, Any] = {"msg": msg.lower(), "collection": collection, "id": item_id}
        if fields is not None and msg.upper() in ("ADDED", "CHANGED"):
            event["fields"] = fields
        return rpc.dumps(event)

    def send(self, message: dict[str, Any]) -> None:
        try:
            text = rpc.dumps(to_legacy(message))
        except (TypeError, ValueError) as exc:
            logger.error("cannot serialize a message to %s: %s", self.origin, exc)
            text = rpc.dumps(legacy_error(message.get("id"), errno.EFAULT, f"Failed to JSON serialize: {exc}"))
        self.send_text(text)


def to_legacy(message: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC 2.0 answer (as the Dispatcher builds it) in the legacy shape; other frames pass as they are."""
    if "jsonrpc" not in message:
        return message
    if "error" in message:
        error = message["error"]
        data = error.get("data") or {}
        code = error.get("code")
        validation = code == rpc.INVALID_PARAMS
        number = errno.EAGAIN if validation else data.get("error") or _ERRNO_OF_CODE.get(code, errno.EINVAL)
        return legacy_error(message.get("id"), number, data.get("reason") or error.get("message"),
                            etype="VALIDATION" if validation else None, extra=data.get("extra"))
    return {"msg": "result", "id": message.get("id"), "result": message.get("result")}


def legacy_error(request_id: Any, number: int, reason: str | None, *, etype: str | None = None,
                 extra: Any = None) -> dict[str, Any]:
    return {"msg": "result", "id": request_id, "error": {
        "error": number, "errname": errname(number), "type": etype, "reason": reason,
        "trace": legacy_trace(etype, reason), "extra": extra,
    }}


def legacy_trace(etype: str | None, reason: str | None) -> dict[str, Any]:
    """middlewared's trace shape with no frames: what failed, never where in the code."""
    cls = "ValidationErrors" if etype == "VALIDATION" else "CallError"
    return {"class": cls, "frames": [], "formatted": f"{cls}: {reason}", "repr": f"{cls}({reason!r})"}


def handle_legacy_frame(dispatcher: Any, session: LegacySession, text: str | bytes) -> None:
    """One /websocket text frame: handshake, method call, ping, sub or unsub."""
    try:
        message = rpc.loads(text)
    except ValueError:
        session.send({"msg": "failed", "version": PROTOCOL_VERSION})
        return
    if not isinstance(message, dict):
        session.send({"msg": "failed", "version": PROTOCOL_VERSION})
        return
    kind = message.get("msg")
    if kind == "connect":
        if message.get("version") != PROTOCOL_VERSION:
            session.send({"msg": "failed", "version": PROTOCOL_VERSION})
            return
        session.handshake = True
        session.send({"msg": "connected", "session": session.id})
    elif not session.handshake:
        session.send({"msg": "failed", "version": PROTOCOL_VERSION})
    elif kind == "method":
        _method(dispatcher, session, message)
    elif kind == "ping":
        session.send({"msg": "pong", **({"id": message["id"]} if "id" in message else {})})
    elif kind == "sub":
        _subscribe(session, message)
    elif kind == "unsub":
        session.subscriptions.pop(str(message.get("id")), None)


def _method(dispatcher: Any, session: LegacySession, message: dict[str, Any]) -> None:
    request_id = message.get("id")
    method, params = message.get("method"), message.get("params") or []
    if not isinstance(method, str) or not method:
        session.send(legacy_error(request_id, errno.EINVAL, "Message is malformed: 'method' is absent."))
    elif not isinstance(params, list):
        session.send(legacy_error(request_id, errno.EINVAL, "`params` must be a list."))
    else:
        dispatcher.handle_request(session, rpc.Request(request_id, method, params))


def _subscribe(session: LegacySession, message: dict[str, Any]) -> None:
    ident, name = str(message.get("id")), message.get("name")
    if not session.authenticated:
        session.send(legacy_error(ident, errno.EACCES, "Not authorized"))
    elif not isinstance(name, str) or (name != "*" and name.split(":", 1)[0] not in EVENTS):
        session.send(legacy_error(ident, errno.ENOENT, f"unknown event {name!r}; known: {', '.join(EVENTS)} (or '*')"))
    else:
        session.subscriptions[ident] = name
        session.send({"msg": "ready", "subs": [ident]})
