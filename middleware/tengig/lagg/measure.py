"""Measure a LAGG for real and read it against its plan: iperf3 with 1 flow and N flows, reads (the
NAS sends: iperf3 -R) and writes, between a client and the LAGG's address, with each member's byte
counters (`ip -s -j link` on the NAS) read around every test. The counters show the hash: with LACP or
LOADBALANCE one flow rides one member, and a member that carried nothing is named.

Runs through the bench Hosts seam, so the same code measures on a TrueNAS (its shell), plain Linux or
the lab. A failed tool is an error, never a zero (bench.network.measure checks iperf3's JSON and exit).
"""
from __future__ import annotations

from ..bench.context import BenchContext
from ..bench.network import LinkUnderTest, measure
from .models import LaggPlan
from .verify import CounterWindow, FlowResult, LaggVerdict, VerifyRequest, analyse, counter_window

COUNTER_TIMEOUT = 10


def _counters(ctx: BenchContext, nas: str) -> str:
    return ctx.run(nas, ["ip", "-s", "-j", "link", "show"], timeout=COUNTER_TIMEOUT, record=False).stdout


def measure_lagg(ctx: BenchContext, plan: LaggPlan, *, nas: str, client: str, lagg_address: str,
                 client_address: str, seconds: int = 5, omit: int = 2) -> tuple[VerifyRequest, LaggVerdict]:
    """Four iperf3 tests (read/write x 1/N flows) with member counters; then the analysis."""
    members = [m.name for m in plan.members]
    link = LinkUnderTest(name=plan.name, client=client, server=nas, server_address=lagg_address,
                         client_address=client_address, line_rate_bps=None, mtu=plan.mtu)
    tests = [(d, f) for f in sorted({1, plan.flows}) for d in ("read", "write")]
    results: list[FlowResult] = []
    windows: list[CounterWindow] = []
    for i, (direction, flows) in enumerate(tests):
        ctx.check_cancel()
        ctx.report(100 * i / len(tests), f"{plan.name}: iperf3 {direction}, {flows} flow(s)")
        before = _counters(ctx, nas)
        m = measure(ctx, link, direction=direction, streams=flows, seconds=seconds, omit=omit)
        after = _counters(ctx, nas)
        results.append(FlowResult(direction=direction, flows=flows, bps=m.goodput_bps))
        windows.append(counter_window(before, after, members, direction=direction, flows=flows))
        ctx.sample(phase=f"lagg {direction} {flows} flow(s)", bytes_per_s=m.goodput_bps / 8)
    request = VerifyRequest(results=results, counters=windows)
    verdict = analyse(plan, request)
    ctx.report(100, verdict.summary.splitlines()[0] if verdict.summary else "measured")
    return request, verdict
