"""Parse `iperf3 -J` output (pure). iperf3 exits 0 even when it could not connect: the `error`
key is checked first, and a result that moved no bytes is refused (docs/physics.md §7). Every number
read is finite and in range, or the output is refused.

The client's output (``parse_iperf3_json``) and the server's for the same test (``parse_iperf3_server``):
both carry the test's cookie, and each side counts what it sent and received itself, on its own clock.
Retransmits are the sender's TCP's own count (tcpi_total_retrans, in segments): the server's in a read (-R),
the client's in a write. A -R client prints the count the server handed over at the end, so in a read it is
the desktop's word for the NAS's count; the NAS's own server report is the witness."""
from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError

from ...errors import ToolOutputError

MAX_SECONDS = 24 * 3600.0
MAX_BPS = 10.0**13  # 10 Tb/s: more than any link tengig measures


class Iperf3Result(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False)

    sender_bytes: int = Field(ge=0, le=2**62, description="Bytes the sending side wrote")
    receiver_bytes: int = Field(gt=0, le=2**62, description="Bytes the receiving side read")
    seconds: float = Field(gt=0, le=MAX_SECONDS, description="Measured window, s (omitted warm-up excluded)")
    receiver_bps: float = Field(gt=0, le=MAX_BPS, description="Goodput at the receiver, bits/s")
    sender_bps: float = Field(ge=0, le=MAX_BPS)
    retransmits: int | None = Field(None, ge=0)
    streams: int = Field(ge=1, le=128)
    reverse: bool
    mss: int | None = Field(None, ge=0, le=65535, description="TCP MSS the sender used, bytes")
    cpu_local_percent: float | None = Field(None, ge=0, le=100_000)
    cpu_remote_percent: float | None = Field(None, ge=0, le=100_000)
    version: str | None = None
    cookie: str | None = Field(None, description="The test's cookie, the same on its client and its server.")


class Iperf3Served(BaseModel):
    """What the NAS's own iperf3 server saw of its one test."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    cookie: str
    streams: int = Field(ge=1)
    reverse: bool = Field(description="The server sent (the client ran -R).")
    bytes: int = Field(ge=0, le=2**62, description="Bytes the server received (a client's write) or sent (-R, its read).")
    retransmits: int | None = Field(None, ge=0, le=2**62, description="Segments the server's TCP sent again (-R: "
                                    "it sent); None when it received (the client's TCP counts those).")
    seconds: float = Field(gt=0, le=MAX_SECONDS, description="Over its measured window, s (omitted warm-up "
                           "excluded), on the server's clock.")

    @property
    def bps(self) -> float:
        return 8 * self.bytes / self.seconds


def _document(text: str, who: str) -> dict[str, Any]:
    start = text.find("{")
    if start < 0:
        raise ToolOutputError(f"{who} printed no JSON: {text.strip()[:300] or '(nothing)'}")
    try:
        doc = json.loads(text[start:], parse_constant=_no_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        raise ToolOutputError(f"{who} JSON is broken ({exc}); the test did not complete") from exc
    if not isinstance(doc, dict):
        raise ToolOutputError(f"{who} JSON is not an object; the test did not complete")
    if doc.get("error"):
        raise ToolOutputError(f"{who} failed: {doc['error']}")
    return doc


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def _built(model: type[BaseModel], who: str, **values: Any):
    try:
        return model(**values)
    except (PydanticError, TypeError, ValueError, OverflowError) as exc:
        raise ToolOutputError(f"{who} JSON holds numbers that are not finite or out of range: {exc}") from exc


def parse_iperf3_json(text: str) -> Iperf3Result:
    doc = _document(text, "iperf3")
    end = doc.get("end") or {}
    sent, received = end.get("sum_sent"), end.get("sum_received")
    if not isinstance(sent, dict) or not isinstance(received, dict) or not sent or not received:
        raise ToolOutputError("iperf3 JSON has no end.sum_sent/sum_received: the test did not complete")
    if not _positive(received.get("bytes")) or not _positive(received.get("seconds")):
        raise ToolOutputError("iperf3 reports zero bytes received: nothing crossed the link")
    start_info = doc.get("start") or {}
    test = start_info.get("test_start") or {}
    cpu = end.get("cpu_utilization_percent") or {}
    return _built(
        Iperf3Result, "iperf3",
        sender_bytes=sent.get("bytes"),
        receiver_bytes=received.get("bytes"),
        seconds=received.get("seconds"),
        receiver_bps=received.get("bits_per_second"),
        sender_bps=sent.get("bits_per_second"),
        retransmits=sent.get("retransmits"),
        streams=test.get("num_streams", 1),
        reverse=bool(test.get("reverse", 0)),
        mss=start_info.get("tcp_mss_default") or start_info.get("tcp_mss"),
        cpu_local_percent=cpu.get("host_total"),
        cpu_remote_percent=cpu.get("remote_total"),
        version=start_info.get("version"),
        cookie=start_info.get("cookie"),
    )


def parse_iperf3_server(text: str) -> Iperf3Served:
    """The JSON of `iperf3 -s -1 -J` (one test): the test it served and what it received, or sent when
    the client ran -R. Raises when it served no test (no JSON, an error, no test's end)."""
    who = "iperf3 -s"
    doc = _document(text, who)
    start_info, end = doc.get("start") or {}, doc.get("end") or {}
    test = start_info.get("test_start") or {}
    reverse = bool(test.get("reverse", 0))
    side = end.get("sum_sent" if reverse else "sum_received")
    if not start_info.get("cookie") or not test or not isinstance(side, dict) or not side:
        raise ToolOutputError(f"{who} printed no test's start and end")
    return _built(Iperf3Served, who, cookie=start_info["cookie"], streams=test.get("num_streams", 1),
                  reverse=reverse, bytes=side.get("bytes"), seconds=side.get("seconds"),
                  retransmits=side.get("retransmits") if reverse else None)


def _positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
