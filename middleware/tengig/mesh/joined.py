"""Verify a mesh from the NAS tengig runs on, with its peers joining (bench/join/join_wait.py): the NAS checks
its own cables (ping, DF ping, names: verify.check_links), then each peer that joined runs iperf3 over
its cable to the NAS, towards it and back; the NAS serves each test itself and checks the peer's figure
against its own iperf3 server and the byte counters of its own port on that cable (bench/join/joined.py), so
a figure the cable did not carry fails the run. Each direction is compared with the cable's planned
goodput ceiling.

A cable between two peers is not measured this way: the NAS sees none of its bytes, and a desktop that
joins opens no port for another to reach. Such pairs are listed in ``unmeasured``, with why.
"""
from __future__ import annotations

from ..bench.context import BenchContext
from ..bench.join.joined import measure_joined_link
from ..bench.phases.nas_port import find_port
from ..bench.join.session import BenchSession, JoinedClient
from ..errors import ValidationError
from .models import MeshPlan
from .verify import MeshVerifyResult, PairThroughput, check_links, judged, pair_throughput


def joined_peers(plan: MeshPlan, nas: str, clients: list[JoinedClient]) -> dict[str, JoinedClient]:
    """Each desktop that joined, as the plan host it says it is (its name); ValidationError ``join`` for one
    that is not a peer of ``nas`` in the plan."""
    peers = [h.name for h in plan.hosts if h.name != nas]
    found: dict[str, JoinedClient] = {}
    for i, c in enumerate(clients):
        if c.name not in peers:
            raise ValidationError.one("join", f"desktop {i + 1} joined as {c.name!r}, which is not a peer of {nas} in "
                                      f"the plan ({', '.join(peers)}): join with --name HOST (the plan's name of "
                                      "that machine)")
        if not any({cable.a.host, cable.b.host} == {nas, c.name} for cable in plan.cables):
            raise ValidationError.one("join", f"{c.name} has no cable to {nas} in the plan: nothing of its to "
                                      "measure from here")
        found[c.name] = c
    return found


def verify_mesh_joined(ctx: BenchContext, plan: MeshPlan, nas: str, session: BenchSession,
                       peers: dict[str, JoinedClient], *, seconds: int, omit: int,
                       min_percent: float) -> MeshVerifyResult:
    """``nas``'s own links checked, then each joined peer's cable to it measured both ways (1 flow)."""
    links = check_links(ctx.part(0, 20), plan, nas)
    cables = [(c, peers[c.far_end_of(nas).host]) for c in plan.cables_of(nas) if c.far_end_of(nas).host in peers]
    matrix: list[PairThroughput] = []
    for i, (cable, client) in enumerate(cables):
        part = ctx.part(20 + 80 * i / len(cables), 20 + 80 * (i + 1) / len(cables))
        near = cable.end_of(nas)
        client.local_address = near.address  # over this cable, whatever address it joined through
        port = find_port(part, nas, near.address)
        measured, _ = measure_joined_link(part, session, client, nas, port, streams=1, seconds=seconds, omit=omit)
        for m in measured:
            sender, receiver = (nas, client.name) if m.direction == "read" else (client.name, nas)
            matrix.append(pair_throughput(cable, sender, receiver, m.goodput_bps, min_percent))
    measured_hosts = {nas, *peers}
    unmeasured = []
    for cable in plan.cables:
        ends = {cable.a.host, cable.b.host}
        if nas in ends and ends <= measured_hosts:
            continue
        who = " and ".join(sorted(ends))
        why = ("between two peers: the NAS sees none of its bytes, and a desktop that joins opens no port for "
               "another" if nas not in ends else f"{(ends - {nas}).pop()} did not join")
        unmeasured.append(f"{cable.id} ({who}): not measured, {why}")
    return judged(ctx, plan, links, matrix, min_percent=min_percent, unmeasured=unmeasured)
