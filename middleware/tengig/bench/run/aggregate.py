"""The aggregate verdict: what the NAS serves to all clients at once, against the target.

Its chain is the NAS's side of the path, summed: the pool (it serves everyone), the NAS's ports the
clients reached (each port's TCP goodput once, however many clients share it), each client's own
network summed (measured one client at a time, so estimated as a sum), and SMB measured with every
client copying at the same time. The pool's facts belong to the sum as to each client (its thread sweep: the
thread count the verdict used, the pool-needs-threads and pool-member-dragging advice). Facts of single links
(negotiated speed, one-stream goodput, smbd's share of a core) are left out: they describe one client, not the
sum, and no rule may fire on them. The NAS's ports are a fact of the sum: the advice says how many more, or how much faster, would carry the target."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...units import format_rate
from ...verdict.ceilings import tcp_goodput_bps
from ...verdict.advice import DIRECTIONS
from ...verdict.judge import judge
from ...verdict.models import Ceiling, Facts, Target, Verdict
from ..phases.pool import PoolBenchResult, pool_facts
from ..phases.smb_results import SmbConcurrentResult


def nas_ports(clients: Sequence[Any]) -> dict[str, tuple[int, int]]:
    """The NAS's ports the clients (ClientReports) reached: name -> (line rate bits/s, MTU), each port once."""
    ports: dict[str, tuple[int, int]] = {}
    for c in clients:
        port = getattr(c, "nas_port", None)
        rate = port.line_rate_bps if port else (c.link.line_rate_bps if c.link else None)
        if rate:
            key = port.ifname if port else c.client
            ports[key] = (rate, port.mtu if port else (c.link.mtu or 1500))
    return ports


def aggregate_ceilings(pool_ceilings: Sequence[Ceiling], clients: Sequence[Any],
                       concurrent: SmbConcurrentResult) -> list[Ceiling]:
    """Ceilings of the NAS serving ``clients`` (ClientReports) at once; ``concurrent`` is their SMB together."""
    out = list(pool_ceilings)
    ports = nas_ports(clients)
    if ports:
        goodput = sum(tcp_goodput_bps(rate, mtu) for rate, mtu in ports.values()) / 8
        names = " + ".join(f"{name} {format_rate(rate)}" for name, (rate, _) in sorted(ports.items()))
        out += [Ceiling(component="link", direction=d, bytes_per_s=goodput, provenance="estimated",
                        label=f"the NAS's ports {names}: TCP goodput summed") for d in DIRECTIONS]
    for d in DIRECTIONS:
        best = [max((m.goodput_bps for m in c.network if m.direction == d), default=None) for c in clients]
        if best and all(b is not None for b in best):
            out.append(Ceiling(component="network", direction=d, bytes_per_s=sum(best) / 8, provenance="estimated",
                               label=f"iperf3 {d}: each client's own best, summed (measured one at a time)"))
    for d in (concurrent.read, concurrent.write):
        out.append(Ceiling(component="smb", direction=d.direction, bytes_per_s=d.aggregate.median,
                           provenance="measured", runs=d.aggregate.values,
                           label=f"SMB {d.direction} {len(concurrent.clients)} clients at once "
                                 f"({', '.join(concurrent.clients)})"))
    return out


def judge_aggregate(target: Target, pool: PoolBenchResult | None, clients: Sequence[Any],
                    concurrent: SmbConcurrentResult, mtus: dict[str, int]) -> Verdict:
    """The verdict of ``clients`` (ClientReports) served at once: the pool's ceilings and its sweep's facts,
    the NAS's ports, the clients' networks summed and SMB measured together."""
    ports = sorted(rate for rate, _ in nas_ports(clients).values())
    ceilings = aggregate_ceilings(pool.ceilings() if pool else [], clients, concurrent)
    return judge(target, ceilings, Facts(mtus=mtus, nas_ports_bps=ports, **pool_facts(pool)))
