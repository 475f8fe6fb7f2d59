"""Measure a LAGG for real and read it against its plan: iperf3 with 1 flow and N flows, reads (the
NAS sends: iperf3 -R) and writes, between a client and the LAGG's address, with each member's byte
counters read around every test (on the NAS, its OS's way: HostOs.port_bytes). The counters show the hash: with LACP or
LOADBALANCE one flow rides one member, and a member that carried nothing is named.

Runs through the bench Hosts seam, so the same code measures on a TrueNAS (its shell), plain Linux or
the lab. A failed tool is an error, never a zero (bench.phases.network.measure checks iperf3's JSON and exit).
"""
from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from ..bench.context import BenchContext
from ..bench.hosts import Hosts
from ..bench.phases.network import LinkUnderTest, measure
from ..errors import ValidationError
from .joined import PortCounters, check_members, members_window
from .models import LaggPlan
from .verify import CounterWindow, FlowResult, LaggVerdict, PortBytes, VerifyRequest, analyse


def measure_lagg(ctx: BenchContext, plan: LaggPlan, *, nas: str, port_bytes: PortCounters, client: str,
                 lagg_address: str, client_address: str, seconds: int, omit: int) -> tuple[VerifyRequest, LaggVerdict]:
    """Four iperf3 tests (read/write x 1/N flows) with member counters (``port_bytes``: the NAS OS's reading);
    then the analysis."""
    members = [m.name for m in plan.members]
    check_members(ctx, plan, nas, port_bytes)
    link = LinkUnderTest(name=plan.name, client=client, server=nas, server_address=lagg_address,
                         client_address=client_address, line_rate_bps=None, mtu=plan.mtu)
    tests = [(d, f) for f in sorted({1, plan.flows}) for d in ("read", "write")]
    results: list[FlowResult] = []
    windows: list[CounterWindow] = []
    for i, (direction, flows) in enumerate(tests):
        ctx.check_cancel()
        ctx.report(100 * i / len(tests), f"{plan.name}: iperf3 {direction}, {flows} flow(s)")
        with members_window(ctx, port_bytes, nas, members, direction, flows, windows):
            m = measure(ctx, link, direction=direction, streams=flows, seconds=seconds, omit=omit)
        results.append(FlowResult(direction=direction, flows=flows, bps=m.goodput_bps))
        ctx.sample(phase=f"lagg {direction} {flows} flow(s)", bytes_per_s=m.goodput_bps / 8)
    request = VerifyRequest(results=results, counters=windows)
    verdict = analyse(plan, request)
    ctx.report(100, verdict.summary.splitlines()[0] if verdict.summary else "measured")
    return request, verdict


class MeasuringSystem(Protocol):
    """What verify needs of a bench system (bench.run.suite.BenchSystem has it): hosts, the NAS, its clients."""
    name: str
    nas: str
    default_clients: list[str]
    hosts: Hosts

    def link(self, client: str) -> LinkUnderTest: ...

    def port_bytes(self, ctx: BenchContext, host: str) -> PortBytes:
        """The NAS's port counters, read its OS's way (HostOs.port_bytes)."""
        ...


class LaggVerification(BaseModel):
    client: str = Field(description="Where the iperf3 client ran.")
    nas: str = Field(description="Where the iperf3 server ran and the member counters were read.")
    lagg_address: str = Field(description="The address measured to.")
    measurements: VerifyRequest = Field(description="iperf3 goodput per test (bits/s) and each member's byte deltas.")
    verdict: LaggVerdict = Field(description="Per test: measured vs expected with the reason; per-member shares and skew.")


class Endpoints(BaseModel):
    client: str
    lagg_address: str
    client_address: str


def choose_endpoints(system: MeasuringSystem, plan: LaggPlan, *, client: str | None = None,
                     lagg_address: str | None = None, client_address: str | None = None) -> Endpoints:
    """Between which client and address to measure: `lagg_address`, else the plan's, else the NAS's address
    on the client's own link (the lab, where no bond can exist). Errors name the option to set."""
    client = client or (system.default_clients[0] if system.default_clients else None)
    if client is None or client not in system.default_clients:
        raise ValidationError.one("client", f"{client!r} is not a client of {system.name} "
                                  f"({', '.join(system.default_clients) or 'none'})")
    lagg_address = lagg_address or (plan.address.split("/")[0] if plan.address else None)
    if lagg_address is None:
        link = system.link(client)
        lagg_address, client_address = link.server_address, client_address or link.client_address
    if client_address is None:
        raise ValidationError.one("client_address", f"name {client}'s address on the LAGG's network: the tests "
                                  "are bound to it so that they cross the LAGG")
    return Endpoints(client=client, lagg_address=lagg_address, client_address=client_address)


def verify_on(system: MeasuringSystem, plan: LaggPlan, ctx: BenchContext, endpoints: Endpoints, *,
              seconds: int, omit: int) -> LaggVerification:
    """measure_lagg between a client of `system` and its NAS, and the analysis."""
    measurements, verdict = measure_lagg(ctx, plan, nas=system.nas, port_bytes=system.port_bytes, client=endpoints.client,
                                         lagg_address=endpoints.lagg_address, client_address=endpoints.client_address,
                                         seconds=seconds, omit=omit)
    return LaggVerification(client=endpoints.client, nas=system.nas, lagg_address=endpoints.lagg_address,
                            measurements=measurements, verdict=verdict)
