"""What a LAGG can move, per direction, for one flow and for many (docs/physics.md §3, §4), pure arithmetic.

- Hashed protocols (LACP, LOADBALANCE) put each flow on one member: one flow never beats one link;
  N flows over n members keep n(1 - (1 - 1/n)^N) members busy on average, and all may land on one.
- Round-robin stripes even one flow, but only what the NAS sends: on an unmanaged switch what the
  clients send arrives on one port (seed 002: reads 18.2 Gb/s, writes 11.8 over 2 x 10G).
- Failover uses one member.
- A dual-port card shares one PCIe link: seed 001's X540-T2 carried about 14 Gb/s for its two 10G
  ports (0.7 of line rate). Without a known limit that is the low end of a shared card, not the estimate.
- Clients cap it too: each client has its own link; a switchless peer bonds its ends like the NAS.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..units import format_rate
from ..verdict.ceilings import tcp_goodput_bps
from .models import Direction, ExpectedThroughput, LaggMember
from .request import LagProtocol, Topology

SHARED_CARD_SEEN = 0.7  # seed 001: a dual-port X540-T2 topped out near 14 Gb/s for 2 x 10 Gb/s


def card_capacity(members: Sequence[LaggMember], limits: Mapping[str, int]) -> tuple[float, float, list[str]]:
    """(expected, low, words): what the members can carry together, each card capped by its known limit;
    the low end assumes seed 001's 0.7 of line rate on shared cards with no known limit."""
    cards: dict[str, list[LaggMember]] = defaultdict(list)
    for m in members:
        cards[m.card if m.card else f"?{m.name}"].append(m)
    expected = low = 0.0
    words = []
    for card, on_card in sorted(cards.items()):
        full = sum(m.goodput_bps for m in on_card)
        if card in limits:
            cap = min(full, float(limits[card]))
            expected += cap
            low += cap
            if cap < full:
                words.append(f"card {card} carries {format_rate(cap)} (options.card_limits_bps)")
        elif len(on_card) > 1:
            seen = min(full, SHARED_CARD_SEEN * sum(m.speed_bps for m in on_card))
            expected += full
            low += seen
            words.append(f"{' and '.join(m.name for m in on_card)} share card {card}: if its PCIe link cannot carry "
                         f"both, ~{format_rate(seen)} (a dual-port X540 reached ~14 Gb/s in seed 001)")
        else:
            expected += full
            low += full
    return expected, low, words


def busy_members(members: int, flows: int) -> float:
    """Members carrying at least one of `flows` uniformly hashed flows, on average."""
    return members * (1 - (1 - 1 / members) ** flows)


def estimate(
    *,
    protocol: LagProtocol,
    topology: Topology,
    members: Sequence[LaggMember],
    card_limits: Mapping[str, int],
    mtu: int,
    client_count: int,
    client_link_bps: int | None,
    flows: int,
) -> list[ExpectedThroughput]:
    """read 1, read N, write 1, write N."""
    n = len(members)
    one = min(m.goodput_bps for m in members)
    total, total_low, card_words = card_capacity(members, card_limits)
    client = tcp_goodput_bps(client_link_bps or members[0].speed_bps, mtu)
    peer = topology == "switchless-peer"  # the peer bonds its ends: it can take what the NAS sends

    def clients(k: int) -> float:
        """What k flows' clients can take or give."""
        return total if peer else min(k, client_count) * client

    rows = []
    for direction in ("read", "write"):
        for k in sorted({1, flows}):
            bps, low, why = _one(protocol, topology, direction, k, n, one, total, total_low, clients(k), card_words)
            rows.append(ExpectedThroughput(direction=direction, flows=k, bps=bps, low_bps=min(low, bps),
                                           multiple=round(bps / one, 1), reason=why))
    if len(rows) == 2:  # flows == 1: the many-flow rows are the one-flow rows
        rows = [rows[0], rows[0], rows[1], rows[1]]
    return rows


def _one(protocol: LagProtocol, topology: Topology, direction: Direction, k: int, n: int, one: float,
         total: float, total_low: float, clients: float, card_words: list[str]) -> tuple[float, float, str]:
    link = format_rate(one)
    flows = "one flow" if k == 1 else f"{k} flows"
    takers = "the client's link takes" if (k == 1 or clients <= one) and topology != "switchless-peer" else "the clients' links take"
    cap_words = f", but {takers} only {format_rate(clients)}" if clients < total else ""
    card = ("; " + "; ".join(card_words)) if card_words else ""
    if protocol == "FAILOVER":
        return min(one, clients), min(one, clients), f"failover sends and receives on one member at a time: {link}"
    symmetric = topology in ("lacp-switch", "switchless-peer") and (protocol == "LACP" or topology == "switchless-peer")
    if direction == "write" and not symmetric:
        # Nothing in front of the NAS aggregates: the switch learnt the LAGG's one MAC on one port.
        bps = min(one, clients)
        mode = "round-robin balances" if protocol == "ROUNDROBIN" else "load balance spreads"
        return bps, bps, (f"{mode} only what the NAS sends: the switch does not aggregate and delivers "
                          f"everything for the LAGG's MAC address through one port, so {flows} to the NAS "
                          f"{'gets' if k == 1 else 'get'} one member, {link}")
    if protocol == "ROUNDROBIN":
        bps = min(total, clients)
        who = "the NAS" if direction == "read" else "the peer"
        return bps, min(total_low, clients), (
            f"round-robin on {who} stripes {flows} over all {n} members{cap_words}: {format_rate(bps)}{card}")
    hashed_by = "the NAS" if direction == "read" else ("the switch" if topology == "lacp-switch" else "the peer")
    if k == 1:
        bps = min(one, clients)
        return bps, bps, f"{hashed_by} hashes each flow onto one member: one flow gets at most one link, {link}"
    busy = busy_members(n, k)
    bps = min(total * busy / n, clients)
    return bps, min(one, clients), (
        f"{hashed_by} hashes each of {flows} onto one of {n} members: about {busy:.1f} busy on average, all on one "
        f"({link}) at worst{cap_words}{card}")
