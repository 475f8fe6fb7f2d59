"""Parse `iperf3 -J` output (pure). iperf3 exits 0 even when it could not connect: the `error`
key is checked first, and a result that moved no bytes is refused (docs/physics.md §7)."""
from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ToolOutputError


class Iperf3Result(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    sender_bytes: int = Field(description="Bytes the sending side wrote")
    receiver_bytes: int = Field(description="Bytes the receiving side read")
    seconds: float = Field(description="Measured window, s (omitted warm-up excluded)")
    receiver_bps: float = Field(description="Goodput at the receiver, bits/s")
    sender_bps: float
    retransmits: int | None = None
    streams: int
    reverse: bool
    mss: int | None = Field(None, description="TCP MSS the sender used, bytes")
    cpu_local_percent: float | None = None
    cpu_remote_percent: float | None = None
    version: str | None = None


def parse_iperf3_json(text: str) -> Iperf3Result:
    start = text.find("{")
    if start < 0:
        raise ToolOutputError(f"iperf3 printed no JSON: {text.strip()[:300] or '(nothing)'}")
    try:
        doc = json.loads(text[start:])
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"iperf3 JSON is broken ({exc}); the test did not complete") from exc
    if doc.get("error"):
        raise ToolOutputError(f"iperf3 failed: {doc['error']}")
    end = doc.get("end") or {}
    sent, received = end.get("sum_sent"), end.get("sum_received")
    if not sent or not received:
        raise ToolOutputError("iperf3 JSON has no end.sum_sent/sum_received: the test did not complete")
    if received.get("bytes", 0) <= 0 or received.get("seconds", 0) <= 0:
        raise ToolOutputError("iperf3 reports zero bytes received: nothing crossed the link")
    start_info = doc.get("start", {})
    test = start_info.get("test_start", {})
    cpu = end.get("cpu_utilization_percent", {})
    return Iperf3Result(
        sender_bytes=int(sent["bytes"]),
        receiver_bytes=int(received["bytes"]),
        seconds=float(received["seconds"]),
        receiver_bps=float(received["bits_per_second"]),
        sender_bps=float(sent["bits_per_second"]),
        retransmits=sent.get("retransmits"),
        streams=int(test.get("num_streams", 1)),
        reverse=bool(test.get("reverse", 0)),
        mss=start_info.get("tcp_mss_default") or start_info.get("tcp_mss"),
        cpu_local_percent=cpu.get("host_total"),
        cpu_remote_percent=cpu.get("remote_total"),
        version=start_info.get("version"),
    )
