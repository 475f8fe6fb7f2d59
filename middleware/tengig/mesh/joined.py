"""Verify a mesh from the NAS tengig runs on, with its peers joining (bench/join/join_wait.py): the n x (n-1)
matrix, every ordered pair of the mesh's hosts over their cable.

- The NAS checks its own cables (ping, DF ping, names: verify.check_links).
- Each peer that joined runs iperf3 over its cable to the NAS, towards it and back; the NAS serves each test
  itself and checks the peer's figure against its own iperf3 server and the byte counters of its own port
  on that cable (bench/join/joined.py), so a figure the cable did not carry fails the run.
- Each cable between two peers that joined is measured by the two of them, both ways (mesh/peer_cable.py:
  one runs a one-test iperf3 server on its end, the other the client, each desktop checking the plan's
  address against its own cables, desk/peer_rule.py), the server's report checked against the client's.

Each direction is compared with the cable's planned goodput ceiling. A cable to a peer that did not join is
listed in ``unmeasured``, with why.
"""
from __future__ import annotations

from ..bench.context import BenchContext
from ..bench.join.joined import measure_joined_link
from ..bench.phases.nas_port import find_port
from ..bench.join.session import BenchSession, JoinedClient
from ..errors import ValidationError
from .models import MeshCable, MeshPlan
from .peer_cable import measure_peer_cable
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


def matrix_plan(plan: MeshPlan, nas: str, joined: dict[str, str]) -> tuple[list[MeshCable], list[MeshCable],
                                                                          list[str]]:
    """Which cables are measured, and how, for the peers that ``joined`` (name -> its OS): (``nas``'s cables
    to them, cables between two of them, each cable not measured with why). Each measured cable gives two
    rows of the matrix."""
    via_nas, between, unmeasured = [], [], []
    for cable in plan.cables:
        ends = [cable.a.host, cable.b.host]
        where = f"{cable.id} ({' and '.join(ends)}): not measured"
        absent = [h for h in ends if h != nas and h not in joined]
        kit = [h for h in ends if joined.get(h) == "windows"]
        if absent:
            unmeasured.append(f"{where}, {' and '.join(absent)} did not join")
        elif nas in ends:
            via_nas.append(cable)
        elif len(kit) == 2:
            unmeasured.append(f"{where}, both joined from Windows: the kit only connects to another desktop's "
                              "iperf3 server (one of its own would need a Windows Firewall rule for inbound "
                              "tests); a Linux, macOS or FreeBSD desktop at either end measures such a cable")
        else:
            between.append(cable)
    return via_nas, between, unmeasured


def verify_mesh_joined(ctx: BenchContext, plan: MeshPlan, nas: str, session: BenchSession,
                       peers: dict[str, JoinedClient], *, seconds: int, omit: int,
                       min_percent: float) -> MeshVerifyResult:
    """``nas``'s own links checked, then every cable whose ends are here or joined measured both ways (1 flow)."""
    links = check_links(ctx.part(0, 20), plan, nas)
    via_nas, between, unmeasured = matrix_plan(plan, nas, {name: c.info.os for name, c in peers.items()})
    steps = max(1, len(via_nas) + len(between))
    matrix: list[PairThroughput] = []
    for i, cable in enumerate(via_nas):
        part = ctx.part(20 + 80 * i / steps, 20 + 80 * (i + 1) / steps)
        near, client = cable.end_of(nas), peers[cable.far_end_of(nas).host]
        client.local_address = near.address  # over this cable, whatever address it joined through
        port = find_port(part, nas, near.address)
        measured, _ = measure_joined_link(part, session, client, nas, port, streams=1, seconds=seconds, omit=omit)
        for m in measured:
            sender, receiver = (nas, client.name) if m.direction == "read" else (client.name, nas)
            matrix.append(pair_throughput(cable, sender, receiver, m.goodput_bps, min_percent, received_bytes=m.bytes,
                                          witness=f"{nas}'s own iperf3 server and port {port.ifname}'s counters"))
    for i, cable in enumerate(between, start=len(via_nas)):
        part = ctx.part(20 + 80 * i / steps, 20 + 80 * (i + 1) / steps)
        matrix += measure_peer_cable(part, session, cable, peers, seconds=seconds, omit=omit, min_percent=min_percent)
    return judged(ctx, plan, links, matrix, min_percent=min_percent, unmeasured=unmeasured)
