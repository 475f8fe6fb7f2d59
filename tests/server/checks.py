"""The assertions the protocol tests make, as functions, so test_checks.py can prove each one fails
on a wrong frame (a check that cannot fail proves nothing)."""
from __future__ import annotations

from typing import Any

INTERNAL_ERROR = -32603


def assert_error(frame: dict[str, Any], code: int, *, errno: int | None = None, request_id: Any = ...) -> dict:
    """``frame`` is a JSON-RPC 2.0 error with ``code`` (and data.error == errno); returns error.data."""
    assert frame.get("jsonrpc") == "2.0", f"not JSON-RPC 2.0: {frame}"
    assert "result" not in frame, f"an error frame must not carry a result: {frame}"
    error = frame.get("error")
    assert isinstance(error, dict) and error.get("code") == code, f"expected error {code}, got {frame}"
    assert isinstance(error.get("message"), str) and error["message"], f"error without a message: {frame}"
    if request_id is not ...:
        assert frame.get("id") == request_id, f"expected id {request_id!r}, got {frame.get('id')!r}"
    data = error.get("data")
    if errno is not None:
        assert isinstance(data, dict), f"error {code} carries no data: {frame}"
        assert data.get("error") == errno, f"expected errno {errno}, got {data.get('error')}: {frame}"
        assert isinstance(data.get("errname"), str) and data["errname"].startswith("E"), frame
        assert isinstance(data.get("reason"), str) and data["reason"], frame
    return data or {}


def assert_field_paths(frame: dict[str, Any], *expected: str) -> list[list[Any]]:
    """A -32602 whose extra lists [field, message, errno] triples with non-empty field paths,
    including every ``expected`` path."""
    data = assert_error(frame, -32602, errno=22)
    extra = data.get("extra")
    assert isinstance(extra, list) and extra, f"-32602 without extra: {frame}"
    for item in extra:
        assert isinstance(item, list) and len(item) == 3, f"extra item is not [field, message, errno]: {item}"
        assert isinstance(item[0], str) and item[0], f"extra item without a field path: {item}"
        assert isinstance(item[1], str) and item[1], f"extra item without a message: {item}"
        assert isinstance(item[2], int), f"extra item without an errno: {item}"
    fields = [item[0] for item in extra]
    for path in expected:
        assert path in fields, f"expected field path {path!r} in {fields}"
    return extra


def assert_job_events(events: list[dict[str, Any]], final: str, *, result: Any = ...,
                      message_id: Any = ...) -> None:
    """One job's events: ADDED first (WAITING), then CHANGED with RUNNING before the end, progress
    never going back, and exactly one final event, in state ``final`` (with ``result`` if given)."""
    assert events, "no events at all"
    assert events[0]["msg"] == "added", f"first event is not ADDED: {events[0]}"
    assert events[0]["fields"]["state"] == "WAITING", f"ADDED job is not WAITING: {events[0]['fields']['state']}"
    if message_id is not ...:
        assert events[0]["fields"]["message_ids"] == [message_id], events[0]["fields"]["message_ids"]
    states = [e["fields"]["state"] for e in events]
    finals = [s for s in states if s in ("SUCCESS", "FAILED", "ABORTED")]
    assert finals == [final] and states[-1] == final, f"expected one final {final}, states were {states}"
    if final != "ABORTED" or "RUNNING" in states:
        assert "RUNNING" in states, f"never RUNNING: {states}"
    percents = [e["fields"]["progress"]["percent"] for e in events]
    assert percents == sorted(percents), f"progress went backwards: {percents}"
    for e in events:
        assert e["collection"] == "core.get_jobs" and e["id"] == events[0]["id"], f"not one job's event: {e}"
        for key in ("id", "message_ids", "method", "arguments", "description", "progress", "state", "result",
                    "error", "exception", "exc_info", "time_started", "time_finished", "abortable", "transient"):
            assert key in e["fields"], f"job dict misses {key!r}: {sorted(e['fields'])}"
    if result is not ...:
        assert events[-1]["fields"]["result"] == result, f"result {events[-1]['fields']['result']!r} != {result!r}"


def assert_no_internal_error(frame: dict[str, Any]) -> None:
    """The fuzz oracle: never -32603, and every -32602 names a field."""
    error = frame.get("error")
    if error is None:
        return
    assert error.get("code") != INTERNAL_ERROR, f"internal error: {frame}"
    if error.get("code") == -32602:
        assert_field_paths(frame)
