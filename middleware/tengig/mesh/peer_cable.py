"""A cable between two desktops that joined a mesh verify, measured both ways by the two of them: the NAS
sees none of its bytes, so it asks one end (``serving_end``: the cable's ``a`` host, unless that desktop
joined from Windows, whose kit only connects) to run a one-test iperf3 server on its address of that cable,
the other to run the client towards it (once sending, once with -R receiving), and the first for what its
server printed. The addresses and the port come from the mesh plan the NAS verifies,
never from a desktop; each desktop checks them again against its own cables (desk/peer_rule.py).

What is taken: the client's iperf3 JSON (exit 0, the test asked for, bytes received) against the other
desktop's server's JSON of the same test (the same cookie, streams and direction, its bytes within the
tolerance of bench/join/nas_witness.py). Two desktops that both lie can agree; the NAS's own port counters,
which check every cable to the NAS, cannot check this one, and ``witness`` says so."""
from __future__ import annotations

from ..bench.context import BenchContext
from ..bench.join.asking import ask
from ..bench.join.joined import parsed_iperf3
from ..bench.join.nas_witness import check_iperf3_served
from ..bench.join.session import BenchSession, JoinedClient
from ..bench.parse.iperf3_parse import parse_iperf3_server
from ..join_protocol.limits import BASE_PORT
from ..join_protocol.messages import Submission
from ..errors import ToolOutputError
from .models import CableEnd, MeshCable
from .verify import PairThroughput, pair_throughput

ANSWER_SLACK_S = 60  # an instruction's way to a desktop and back, on top of what it runs


def _ok(sub: Submission, client: JoinedClient, what: str) -> Submission:
    if sub.exit_code != 0:
        raise ToolOutputError(f"{what} on {client.name} failed (exit {sub.exit_code}): "
                              f"{(sub.stderr or sub.stdout).strip()[-300:]}")
    return sub


def serving_end(cable: MeshCable, os_of: dict[str, str]) -> tuple[CableEnd, CableEnd]:
    """(the end whose desktop runs the one-test iperf3 server, the end whose desktop connects to it): ``a``,
    unless ``a`` joined from Windows (``os_of``: each peer's OS as it joined). The Windows kit only
    connects: a server there would need a Windows Firewall rule for inbound tests. Two Windows ends are not
    measured (mesh/joined.matrix_plan)."""
    return (cable.b, cable.a) if os_of.get(cable.a.host) == "windows" else (cable.a, cable.b)


def measure_peer_cable(ctx: BenchContext, session: BenchSession, cable: MeshCable,
                       peers: dict[str, JoinedClient], *, seconds: int, omit: int, min_percent: float,
                       port: int = BASE_PORT) -> list[PairThroughput]:
    """Both directions of ``cable`` (between two of ``peers``): the connecting end -> the serving end (its
    iperf3 client sends), then back (-R: the server sends); serving_end says which is which."""
    served_at, connecting = serving_end(cable, {name: peer.info.os for name, peer in peers.items()})
    server, client = peers[served_at.host], peers[connecting.host]
    out = []
    for i, direction in enumerate(("write", "read")):
        ctx.report(50 * i, f"iperf3 {client.name} -> {server.name} over {cable.id}" if direction == "write"
                   else f"iperf3 {server.name} -> {client.name} over {cable.id}")
        _ok(ask(ctx, session, server, "peer", {"op": "listen", "bind": served_at.address, "port": port,
                                               "seconds": seconds, "omit": omit},
                timeout=ANSWER_SLACK_S, tool="iperf3 server start"), server, "starting an iperf3 server")
        sub = ask(ctx, session, client, "peer", {"op": "connect", "server": served_at.address, "port": port,
                                                 "streams": 1, "seconds": seconds, "omit": omit,
                                                 "reverse": direction == "read"},
                  timeout=seconds + omit + ANSWER_SLACK_S, tool="iperf3")
        result = parsed_iperf3(client, direction, 1, sub)
        served = _ok(ask(ctx, session, server, "peer", {"op": "served", "port": port},
                         timeout=seconds + omit + 2 * ANSWER_SLACK_S, tool="iperf3 server"), server,
                     "the iperf3 server")
        check_iperf3_served(client.name, direction, 1, seconds, result, served.stdout,
                            server=f"{server.name}'s own iperf3 server")
        sender, receiver = (client.name, server.name) if direction == "write" else (server.name, client.name)
        out.append(pair_throughput(
            cable, sender, receiver, result.receiver_bps, min_percent, received_bytes=result.receiver_bytes,
            witness=f"{server.name}'s iperf3 server: {parse_iperf3_server(served.stdout).bytes} bytes "
                    f"{'sent' if direction == 'read' else 'received'} (two desktops: no NAS port on this cable)"))
        ctx.sample(phase=f"mesh {sender}->{receiver}", bytes_per_s=result.receiver_bps / 8)
    ctx.report(100, f"{cable.id} measured")
    return out
