"""JSON-RPC 2.0 as middlewared speaks it (docs/truenas-api.md §2): parsing a frame, and the exact shapes of
answers, errors and notifications.

Two deliberate differences from middlewared, both toward the JSON-RPC spec: a frame that is valid
JSON but not an object (a number, a batch array) is -32600 "Invalid Request" (middlewared says
-32700), and an invalid request without an id is still answered, with id null (middlewared stays
silent). Calls without an id (notifications) run and are never answered, as in middlewared.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..api.exceptions import errname

INVALID_JSON = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TOO_MANY_CONCURRENT_CALLS = -32000
CALL_ERROR = -32001

NO_ID = object()  # a request without "id": a notification, never answered


@dataclass(frozen=True)
class Request:
    id: Any  # NO_ID for a notification
    method: str
    params: list[Any]


class BadFrame(Exception):
    """The frame is not a request; ``answer`` is the error to send back."""

    def __init__(self, answer: dict[str, Any]):
        super().__init__(answer["error"]["message"])
        self.answer = answer


def parse_request(text: str | bytes) -> Request:
    """A text frame as a Request, or BadFrame carrying the -32700/-32600 answer."""
    try:
        message = loads(text)
    except ValueError as exc:
        raise BadFrame(error(None, INVALID_JSON, str(exc) or "Parse error")) from None
    if not isinstance(message, dict):
        what = "Batch messages are not supported" if isinstance(message, list) else "A request must be a JSON object"
        raise BadFrame(error(None, INVALID_REQUEST, what))
    request_id = message.get("id", NO_ID)
    answer_id = None if request_id is NO_ID else request_id
    if request_id is not NO_ID and (isinstance(request_id, bool) or not isinstance(request_id, (type(None), int, str))):
        raise BadFrame(error(None, INVALID_REQUEST, "'id' member must be of type null, string or number"))
    if message.get("jsonrpc") != "2.0":
        problem = "Missing 'jsonrpc' member" if "jsonrpc" not in message else \
            "'jsonrpc' member must be of type string and must be exactly '2.0'"
        raise BadFrame(error(answer_id, INVALID_REQUEST, problem))
    method = message.get("method")
    if not isinstance(method, str) or not method:
        problem = "Missing 'method' member" if "method" not in message else "'method' member must be of type string"
        raise BadFrame(error(answer_id, INVALID_REQUEST, problem))
    params = message.get("params", [])
    if not isinstance(params, list):
        raise BadFrame(error(answer_id, INVALID_REQUEST, "'params' member must be of type array"))
    return Request(request_id, method, params)


def success(request_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "result": result, "id": request_id}


def error(request_id: Any, code: int, message: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "error": body, "id": request_id}


def truenas_error(errno_: int, reason: str, extra: list[Any] | None = None) -> dict[str, Any]:
    """middlewared's error data. No traceback goes over the wire (trace is always null): the server
    logs it instead, so a remote caller learns what failed, not how the code is laid out."""
    return {"error": errno_, "errname": errname(errno_), "reason": reason, "trace": None, "extra": extra}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def collection_update(msg: str, collection: str, item_id: Any, fields: dict[str, Any] | None) -> dict[str, Any]:
    params: dict[str, Any] = {"msg": msg.lower(), "collection": collection, "id": item_id}
    if fields is not None and msg.upper() in ("ADDED", "CHANGED"):
        params["fields"] = fields
    return notification("collection_update", params)


class RawJSON(str):
    """A result already serialized (core.get_methods' cached catalogue): spliced into the answer as it is."""


_encode = json.JSONEncoder(allow_nan=False, separators=(",", ":")).encode


def dumps(message: dict[str, Any]) -> str:
    """Strict JSON: NaN and infinity are refused (ValueError), never sent as invalid JSON. A RawJSON
    result goes in as it is, without being parsed or serialized again."""
    result = message.get("result")
    if isinstance(result, RawJSON):
        rest = _encode({key: value for key, value in message.items() if key != "result"})
        return f'{rest[:-1]},"result":{result}}}' if rest != "{}" else f'{{"result":{result}}}'
    return _encode(message)


def _refuse_constant(name: str) -> float:
    # Python's json accepts NaN/Infinity; JSON does not, and a NaN must never become a measurement.
    raise ValueError(f"{name} is not valid JSON")


_decode = json.JSONDecoder(parse_constant=_refuse_constant).decode  # made once: json.loads(**kw) makes one per call


def loads(text: str | bytes) -> Any:
    """A frame's JSON, strictly: ValueError for anything else, NaN and infinity included, and for nesting
    deeper than the parser goes (Python's RecursionError, which no caller should have to know of)."""
    try:
        return _decode(text if isinstance(text, str) else text.decode())
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
