"""Verify a LAGG on the NAS tengig runs on, with the desktops that join (bench/join/join_wait.py): each desktop
runs iperf3 towards the NAS and back with 1 flow and N, alone; then all of them at once. The NAS serves
each test itself, reads its LAGG's member byte counters around every test (its OS's way, HostOs.port_bytes:
`ip -s -j link` on Linux, `netstat -i -b -n -W` on FreeBSD: tengig.backends), and checks
each desktop's figure against its own iperf3 server and its own counters (bench/join/joined.py): a number the
members did not carry fails the run. Then each test is read against the plan (verify.analyse): which
member carried which desktop's flows, and each direction's figure against the planner's expectation
(seed 002: round-robin balances only what the NAS sends).

Where the NAS has no bond of the plan's name (the lab: its kernel has no bonding driver), the members are
the NAS's separate ports, each desktop reaching the NAS through the one its cable is on, as a switch that
hashes each client onto one member would: the result says so (``emulated``), and the counters are still
each port's own.
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from pydantic import BaseModel, Field

from ..bench.context import BenchContext
from ..bench.join.joined import measure_joined_link, parsed_iperf3
from ..bench.join.nas_witness import check_iperf3_served
from ..bench.phases.nas_port import NasPort, address_towards, find_port, proxied
from ..bench.phases.network import server_report, wait_listening
from ..join_protocol.limits import BASE_PORT
from ..bench.join.session import BenchSession, JoinedClient
from ..errors import ToolOutputError, ValidationError
from ..results.models import RawOutput
from ..units import format_size
from .models import LaggPlan
from .verify import (
    CounterWindow, FlowResult, LaggVerdict, PortBytes, VerifyRequest, analyse, counter_window,
)

PortCounters = Callable[[BenchContext, str], PortBytes]  # (ctx, the NAS) -> its ports' counters: HostOs.port_bytes


class DesktopLaggTests(BaseModel):
    client: str = Field(description="The desktop, as it joined.")
    client_address: str = Field(description="Its address, as the NAS's socket saw it.")
    nas_address: str = Field(description="The NAS's address it measured to (the iperf3 server was bound to it).")
    nas_port: str = Field(description="The NAS's interface holding that address: the LAGG, or (emulated) a member.")
    measurements: VerifyRequest = Field(description="Its tests alone: goodput, bits/s, and each member's byte deltas.")
    verdict: LaggVerdict = Field(description="Its tests against the plan, with which member carried its flows.")


class TogetherTests(BaseModel):
    clients: list[str] = Field(description="The desktops that ran at once.")
    streams_each: int = Field(description="Flows each desktop ran.")
    measurements: VerifyRequest = Field(description="Per direction: the desktops' goodput added up (bits/s), flows "
                                        "= all of them, and each member's byte deltas over the test.")
    per_client_bps: dict[str, dict[str, float]] = Field(description="direction -> desktop -> its goodput, bits/s.")
    verdict: LaggVerdict = Field(description="Each direction's total against the plan's many-flow expectation.")


class JoinedLaggVerification(BaseModel):
    nas: str = Field(description="The NAS: where the iperf3 servers ran and the member counters were read.")
    lagg: str = Field(description="The LAGG of the plan.")
    members: list[str] = Field(description="Its members, whose counters were read.")
    emulated: str | None = Field(description="What stood in for the bond, when the NAS has none of the plan's name "
                                 "(the lab's kernel has no bonding driver); None: a real bond was measured.")
    desktops: list[DesktopLaggTests] = Field(description="Each desktop's tests alone, in join order.")
    together: TogetherTests | None = Field(description="All desktops at once (with two or more).")
    summary: str = Field(description="One line per test, bits/s figures with their units.")


def check_join_options(options) -> None:
    """The verify options that go with desktops that join (ValidationError naming the option otherwise)."""
    if options.join is None:
        raise ValidationError.one("join", f"on system '{options.system}' the far end is the desktops that join: "
                                  "say how many (1 to 16) and run the join command shown on each")
    for name in ("client", "lagg_address", "client_address"):
        if getattr(options, name) is not None:
            raise ValidationError.one(name, "with join, the desktops that join are the far end and each measures "
                                      "to the address it joined; leave it out")


def check_counters_readable(os_name: str) -> None:
    """The member counters are read on either OS (HostOs.port_bytes), but each desktop's port on the NAS is
    found, and each test checked against the NAS's own port, with iproute2 (bench/phases/nas_port.py):
    ValidationError ``system`` on a NAS that has none (FreeBSD: TrueNAS CORE, its jail)."""
    if os_name != "linux":
        raise ValidationError.one("system", f"this NAS runs {os_name}: tengig finds the port each desktop reached, "
                                  "and checks its figures against that port's counters, with iproute2 (ip addr, ip "
                                  "-s link), which only Linux has; on TrueNAS CORE measure from a desktop and give "
                                  "the numbers to tengig.lagg.analyse")


def check_members(ctx: BenchContext, plan: LaggPlan, nas: str, port_bytes: PortCounters) -> str | None:
    """Every member is a port of the NAS (ValidationError ``request.members`` else); returns what stands in
    for the bond when the NAS has no interface of the plan's name, else None."""
    members = [m.name for m in plan.members]
    ports = port_bytes(ctx, nas)
    missing = [name for name in members if name not in ports]
    if missing:
        raise ValidationError.one("members", f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not a "
                                  f"port of {nas} ({', '.join(sorted(ports))}): plan the LAGG from {nas}'s own "
                                  "inventory (tengig.nic.query) so its member counters can be read")
    if plan.name in ports:
        return None
    return (f"{nas} has no interface {plan.name} (no bonding driver here): its members {', '.join(members)} are "
            "separate ports, each desktop reaching the NAS through the one its cable is on, as a switch that hashes "
            "each client onto one member; the byte counters are each port's own")


def client_port(ctx: BenchContext, plan: LaggPlan, nas: str, client: JoinedClient, i: int) -> NasPort:
    """The NAS's port ``client`` reached: the LAGG itself, or one of its members (emulated); else
    ValidationError ``join`` naming the address to join instead."""
    if proxied(client.local_address, client.peer_address):  # through TrueNAS's nginx: which link, by route
        client.local_address = address_towards(ctx, nas, client.peer_address)
    port = find_port(ctx, nas, client.local_address)
    allowed = [plan.name, *(m.name for m in plan.members)]
    if port.ifname not in allowed:
        where = f"the LAGG's address ({plan.address.split('/')[0]})" if plan.address else f"an address on {plan.name}"
        raise ValidationError.one("join", f"desktop {i + 1} ({client.name}) reached {nas} at {client.local_address} "
                                  f"on {port.ifname}, which is neither {plan.name} nor one of its members: its "
                                  f"flows would not cross the LAGG; join with {where} in the URL")
    return port


@contextlib.contextmanager
def members_window(ctx: BenchContext, port_bytes: PortCounters, nas: str, members: list[str], direction: str,
                   flows: int, windows: list[CounterWindow]) -> Iterator[None]:
    """The members' byte deltas over the block (``port_bytes``: the NAS OS's reading), appended to ``windows``."""
    before = port_bytes(ctx, nas)
    yield
    windows.append(counter_window(before, port_bytes(ctx, nas), members, direction=direction, flows=flows))


def _bytes_moved(window: CounterWindow, direction: str) -> int:
    return sum(m.tx_bytes if direction == "read" else m.rx_bytes for m in window.members)


def _alone(ctx: BenchContext, port_bytes: PortCounters, plan: LaggPlan, session: BenchSession, client: JoinedClient,
           nas: str, port: NasPort, *, streams: int, seconds: int, omit: int) -> DesktopLaggTests:
    members = [m.name for m in plan.members]
    windows: list[CounterWindow] = []
    measured, _ = measure_joined_link(
        ctx, session, client, nas, port, streams=streams, seconds=seconds, omit=omit,
        around=lambda d, n: members_window(ctx, port_bytes, nas, members, d, n, windows))
    for m, window in zip(measured, windows):
        moved = _bytes_moved(window, m.direction)
        if m.bytes > moved:
            raise ToolOutputError(f"{client.name} reports {format_size(m.bytes)} received in iperf3 {m.direction} "
                                  f"{m.streams} flow(s), but {plan.name}'s members carried {format_size(moved)}: its "
                                  "numbers are not what the LAGG carried (the run is not trusted)")
    request = VerifyRequest(results=[FlowResult(direction=m.direction, flows=m.streams, bps=m.goodput_bps)
                                     for m in measured], counters=windows)
    return DesktopLaggTests(client=client.name, client_address=client.peer_address, nas_address=client.local_address,
                            nas_port=port.ifname, measurements=request, verdict=analyse(plan, request))


def _together(ctx: BenchContext, port_bytes: PortCounters, plan: LaggPlan, session: BenchSession,
              clients: list[JoinedClient], nas: str, *, streams: int, seconds: int, omit: int) -> TogetherTests:
    """Every desktop at once, each with ``streams`` flows to its own iperf3 server on the NAS, one direction
    after the other; each figure checked against its server, the sum against the members' counters."""
    members = [m.name for m in plan.members]
    results: list[FlowResult] = []
    windows: list[CounterWindow] = []
    per_client: dict[str, dict[str, float]] = {}
    for k, direction in enumerate(("read", "write")):
        ctx.report(50 * k, f"iperf3 {direction}: {len(clients)} desktops at once, {streams} flow(s) each")
        servers = []
        answered = False
        started = time.time()
        try:
            for i, c in enumerate(clients):
                port = BASE_PORT + 1 + i
                argv = ["iperf3", "-s", "-1", "-J", "-B", c.local_address, "-p", str(port)]
                servers.append((c, port, argv, ctx.spawn(nas, argv, log_name=f"iperf3-lagg-{c.name}-{port}",
                                                         stdout_pipe=True)))
            for c, port, _, server in servers:
                wait_listening(ctx, nas, port, server, program="iperf3 server")
            with members_window(ctx, port_bytes, nas, members, direction, streams * len(clients), windows):
                ids = session.post_all([(c, "iperf3", {"server": c.local_address, "port": port, "streams": streams,
                                                       "seconds": seconds, "omit": omit,
                                                       "reverse": direction == "read"})
                                        for c, port, _, _ in servers])
                subs = [session.wait_result(c, iid, timeout=seconds + omit + 60, cancel=ctx.cancel)
                        for (c, _, _, _), iid in zip(servers, ids)]
            answered = True
        finally:
            reports = [server_report(proc, wait=answered) for _, _, _, proc in servers]
            for (c, _, argv, proc), out in zip(servers, reports):
                ctx.raw.append(RawOutput(tool="iperf3 server", argv=argv, exit_code=proc.returncode, stdout=out,
                                         started=started, seconds=max(0.0, time.time() - started)))
        for (c, _, _, _), sub in zip(servers, subs):
            ctx.raw.append(RawOutput(tool=f"iperf3 on {c.name}", argv=sub.argv, exit_code=sub.exit_code,
                                     stdout=sub.stdout, stderr=sub.stderr, started=started, seconds=sub.seconds))
        parsed = [parsed_iperf3(c, direction, streams, sub) for (c, _, _, _), sub in zip(servers, subs)]
        received, moved = sum(r.receiver_bytes for r in parsed), _bytes_moved(windows[-1], direction)
        if received > moved:
            raise ToolOutputError(f"the desktops report {format_size(received)} received in iperf3 {direction} at "
                                  f"once, but {plan.name}'s members carried {format_size(moved)}: their numbers are "
                                  "not what the LAGG carried (the run is not trusted)")
        for c, result, out in zip(clients, parsed, reports):
            check_iperf3_served(c.name, direction, streams, seconds, result, out)
        per_client[direction] = {c.name: r.receiver_bps for c, r in zip(clients, parsed)}
        total = sum(r.receiver_bps for r in parsed)
        results.append(FlowResult(direction=direction, flows=streams * len(clients), bps=total))
        ctx.sample(phase=f"lagg {direction} {len(clients)} desktops at once", bytes_per_s=total / 8)
    request = VerifyRequest(results=results, counters=windows)
    return TogetherTests(clients=[c.name for c in clients], streams_each=streams, measurements=request,
                         per_client_bps=per_client, verdict=analyse(plan, request))


def client_ports(ctx: BenchContext, plan: LaggPlan, nas: str, clients: list[JoinedClient]) -> dict[str, NasPort]:
    """Each desktop's port on the NAS (client_port), by name."""
    return {c.name: client_port(ctx, plan, nas, c, i) for i, c in enumerate(clients)}


def verify_joined(ctx: BenchContext, plan: LaggPlan, session: BenchSession, clients: list[JoinedClient], nas: str,
                  *, port_bytes: PortCounters, emulated: str | None, ports: dict[str, NasPort], streams: int, seconds: int,
                  omit: int) -> JoinedLaggVerification:
    """Each desktop alone (read/write x 1/``streams`` flows), then all at once; every test against the plan.
    ``port_bytes``: the NAS OS's counter reading; ``emulated``: check_members's answer; ``ports``: client_ports's."""
    steps = len(clients) + (1 if len(clients) > 1 else 0)
    desktops = []
    for i, c in enumerate(clients):
        desktops.append(_alone(ctx.part(100 * i / steps, 100 * (i + 1) / steps), port_bytes, plan, session, c, nas,
                               ports[c.name], streams=streams, seconds=seconds, omit=omit))
    together = None
    if len(clients) > 1:
        together = _together(ctx.part(100 * (steps - 1) / steps, 100), port_bytes, plan, session, clients, nas,
                             streams=streams, seconds=seconds, omit=omit)
    lines = [f"{d.client} alone via {d.nas_port}: {line}" for d in desktops for line in d.verdict.summary.splitlines()]
    if together:
        lines += [f"{', '.join(together.clients)} at once: {line}" for line in together.verdict.summary.splitlines()]
    ctx.report(100, "verified")
    return JoinedLaggVerification(nas=nas, lagg=plan.name, members=[m.name for m in plan.members], emulated=emulated,
                                  desktops=desktops, together=together, summary="\n".join(lines))
