"""Read a LAGG measurement against its plan (pure): iperf3 results for 1 and N flows in both
directions, and each member's byte counters over each test (`ip -s -j link` before and after).

Per test it gives each member's share of the bytes in the direction that matters (read: what the
NAS sent, tx; write: what it received, rx), the hash skew (busiest over quietest member, and the
coefficient of variation), and the measurement against the plan's expectation with the likely
reason when it falls short.
"""
from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ToolOutputError, ValidationError, parse_model
from ..units import format_rate
from .models import Direction, LaggPlan

DEFAULT_TOLERANCE_PERCENT = 10.0
ONE_MEMBER_SHARE = 0.9  # a member with 90% of the bytes or more carried the test alone


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, str_max_length=1024)


class FlowResult(_Input):
    direction: Direction = Field(description="read: the NAS sent (iperf3 -R from the client); write: the NAS received.")
    flows: int = Field(ge=1, description="Parallel TCP flows (iperf3 -P).")
    bps: float = Field(gt=0, description="Receiver-side goodput, bits/s (Iperf3Result.receiver_bps).")


class MemberBytes(_Input):
    name: str = Field(description="Member port.")
    rx_bytes: int = Field(ge=0, description="Bytes received during the test (counter after minus before).")
    tx_bytes: int = Field(ge=0, description="Bytes sent during the test.")


class CounterWindow(_Input):
    direction: Direction = Field(description="The test the counters cover.")
    flows: int = Field(ge=1, description="Its flow count.")
    members: list[MemberBytes] = Field(min_length=1, description="Each member's byte deltas over that test.")


class VerifyRequest(_Input):
    results: list[FlowResult] = Field(min_length=1, description="Measured throughput per test.")
    counters: list[CounterWindow] = Field(default_factory=list, description="Member counters per test, if read.")
    tolerance_percent: float = Field(DEFAULT_TOLERANCE_PERCENT, gt=0, le=50,
                                     description="Within this of the expectation counts as as expected.")


class MemberShare(BaseModel):
    name: str = Field(description="Member port.")
    bytes: int = Field(description="Bytes in the test's direction (tx for read, rx for write).")
    share: float = Field(description="Fraction of all members' bytes, 0..1.")


class Balance(BaseModel):
    direction: Direction = Field(description="Test direction.")
    flows: int = Field(description="Test flow count.")
    shares: list[MemberShare] = Field(description="Per member, in plan order.")
    skew: float | None = Field(description="Busiest over quietest member's bytes; None when a member moved nothing.")
    cv: float = Field(description="Coefficient of variation of the members' bytes (0 = perfectly even).")
    idle: list[str] = Field(description="Members that carried under 1% of the bytes.")


class Comparison(BaseModel):
    direction: Direction = Field(description="Test direction.")
    flows: int = Field(description="Test flow count.")
    measured_bps: float = Field(description="What iperf3 measured, bits/s.")
    expected_bps: float = Field(description="The plan's expectation, bits/s.")
    low_bps: float = Field(description="The plan's low end, bits/s.")
    percent_of_expected: float = Field(description="measured / expected x 100.")
    status: Literal["as-expected", "above", "low-end", "below"] = Field(
        description="as-expected: within tolerance; above: more than planned; low-end: between the plan's low end "
        "and its expectation; below: under the low end.")
    reason: str = Field(description="What the numbers say, with the likely reason when short.")


class LaggVerdict(BaseModel):
    comparisons: list[Comparison] = Field(description="One per measured test, in request order.")
    balance: list[Balance] = Field(description="One per counter window, in request order.")
    summary: str = Field(description="One line per test.")


PortBytes = dict[str, tuple[int, int]]  # {port: (bytes received, bytes sent)}, as HostOs.port_bytes reads them


def counter_window(first: PortBytes, second: PortBytes, members: Sequence[str], *, direction: Direction,
                   flows: int) -> CounterWindow:
    """Two snapshots of the ports' byte counters around one test, as the NAS's OS reads them
    (HostOs.port_bytes) -> each member's byte deltas."""
    rows = []
    for name in members:
        if name not in first or name not in second:
            raise ToolOutputError(f"member {name} is missing from the NAS's port counters ({', '.join(sorted(first))})")
        rx, tx = second[name][0] - first[name][0], second[name][1] - first[name][1]
        if rx < 0 or tx < 0:
            raise ToolOutputError(f"{name}'s byte counters went backwards (reset or the port was re-created): "
                                  "measure again")
        rows.append(MemberBytes(name=name, rx_bytes=rx, tx_bytes=tx))
    return CounterWindow(direction=direction, flows=flows, members=rows)


def balance(window: CounterWindow, order: Sequence[str]) -> Balance:
    rank = {name: i for i, name in enumerate(order)}
    rows = sorted(window.members, key=lambda m: rank.get(m.name, len(rank)))
    counts = [m.tx_bytes if window.direction == "read" else m.rx_bytes for m in rows]
    total = sum(counts)
    if total <= 0:
        raise ToolOutputError(f"the members moved no bytes during the {window.direction} test: the traffic did not "
                              "go through the LAGG")
    mean = total / len(counts)
    cv = statistics.pstdev(counts) / mean if len(counts) > 1 else 0.0
    return Balance(
        direction=window.direction, flows=window.flows,
        shares=[MemberShare(name=m.name, bytes=c, share=round(c / total, 4)) for m, c in zip(rows, counts)],
        skew=round(max(counts) / min(counts), 2) if min(counts) > 0 else None,
        cv=round(cv, 3),
        idle=[m.name for m, c in zip(rows, counts) if c < 0.01 * total],
    )


def analyse(plan: LaggPlan, request: VerifyRequest | Mapping[str, Any]) -> LaggVerdict:
    request = parse_model(VerifyRequest, request)
    order = [m.name for m in plan.members]
    for i, window in enumerate(request.counters):
        for k, m in enumerate(window.members):
            if m.name not in order:
                raise ValidationError.one(f"counters.{i}.members.{k}.name", f"{m.name} is not a member of {plan.name}")
    balances = [balance(w, order) for w in request.counters]
    by_test = {(b.direction, b.flows): b for b in balances}
    comparisons = [_compare(plan, r, by_test.get((r.direction, r.flows)), request.tolerance_percent)
                   for r in request.results]
    summary = "\n".join(f"{c.direction} {c.flows} flow{'s' if c.flows > 1 else ''}: {format_rate(c.measured_bps)} of "
                        f"{format_rate(c.expected_bps)} expected ({c.percent_of_expected:.0f}%), {c.status}"
                        + _shares_text(by_test.get((c.direction, c.flows))) for c in comparisons)
    return LaggVerdict(comparisons=comparisons, balance=balances, summary=summary)


def _shares_text(bal: Balance | None) -> str:
    """'; eth-desk 100%, eth-lab idle' — which members carried the test's bytes."""
    if bal is None:
        return ""
    return "; " + ", ".join(f"{s.name} idle" if s.name in bal.idle else f"{s.name} {s.share:.0%}" for s in bal.shares)


def _compare(plan: LaggPlan, result: FlowResult, bal: Balance | None, tolerance: float) -> Comparison:
    row = plan.expected(result.direction, result.flows)
    expected, low = row.bps, row.low_bps
    if result.flows > 1 and result.flows != plan.flows:
        # A flow count the plan did not estimate: scale nothing, compare with the many-flow row and say so.
        note = f" (the plan estimated {plan.flows} flows, this test ran {result.flows})"
    else:
        note = ""
    percent = 100 * result.bps / expected
    one = plan.members[0].goodput_bps
    if result.bps > expected * (1 + tolerance / 100):
        status = "above"
        reason = (f"more than planned: {row.reason}; a switch that keeps relearning the LAGG's MAC on other ports "
                  "spreads some of what it delivers" if "one member" in row.reason and result.direction == "write"
                  else f"more than planned ({row.reason}): check the plan's inputs (member speed, MTU, client links)")
    elif result.bps >= expected * (1 - tolerance / 100):
        status, reason = "as-expected", f"within {tolerance:g}% of the plan: {row.reason}"
    elif result.bps >= low * (1 - tolerance / 100):
        status, reason = "low-end", f"at the plan's low end: {_why_short(plan, result, bal, one)}"
    else:
        status, reason = "below", f"below the plan's low end: {_why_short(plan, result, bal, one)}"
    return Comparison(direction=result.direction, flows=result.flows, measured_bps=result.bps, expected_bps=expected,
                      low_bps=low, percent_of_expected=round(percent, 1), status=status, reason=reason + note)


def _why_short(plan: LaggPlan, result: FlowResult, bal: Balance | None, one: float) -> str:
    hashed = plan.protocol in ("LACP", "LOADBALANCE")
    if bal is not None:
        busiest = max(bal.shares, key=lambda s: s.share)
        if len(plan.members) > 1 and busiest.share >= ONE_MEMBER_SHARE and plan.protocol != "FAILOVER":
            if hashed:
                spread = ("more flows and more clients spread them" if plan.xmit_hash_policy == "LAYER3+4" else
                          "more flows, or LAYER3+4 (it hashes the ports too) for clients behind one router, spread them")
                return (f"{busiest.name} carried {busiest.share:.0%} of the bytes: the hash "
                        f"({plan.xmit_hash_policy}) put the flows on one member; {spread}")
            return (f"{busiest.name} carried {busiest.share:.0%} of the bytes: the other members did not send; "
                    "check each member's link and that the LAGG is up on all of them")
        if bal.skew is not None and bal.skew >= 2 and hashed:
            return f"the members carried uneven shares (skew {bal.skew:g}x): flows hashed unevenly"
    shared = [n for n in plan.notes if n.code == "shared-card"]
    if shared:
        return "members share one card: its PCIe link is the likely ceiling (" + shared[0].text.split(":")[0] + ")"
    if result.bps < 0.9 * one:
        return (f"under one member's ceiling ({format_rate(one)}): check the MTU end to end (a don't-fragment ping), "
                "each member's negotiated speed, and CPU (one core per flow)")
    return "no member counters to tell why: read `ip -s -j link` before and after the test"
