"""Alternatives that serve the goal better than the planned LAGG, and notes worth reading first.

The alternatives are the ones docs/physics.md §3 and §8 support: SMB multichannel over separate
NICs for one fast client (not over a LAGG), round-robin where platform and topology allow it, an
LACP switch to balance writes, Linux's balance-alb (seed 002: writes 12.8 Gb/s against 11.8).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ..units import format_rate
from .models import Alternative, ExpectedThroughput, LaggMember, PlanNote
from .protocols import round_robin_allowed
from .request import LagProtocol, LaggRequest


def alternatives(request: LaggRequest, protocol: LagProtocol, members: Sequence[LaggMember], total_bps: float,
                 throughput: Sequence[ExpectedThroughput]) -> list[Alternative]:
    goal, topology, platform = request.goal, request.topology, request.platform
    out: list[Alternative] = []
    read_n = throughput[1]
    if goal == "one-client-faster" or (goal != "failover" and request.client_count <= 2 and protocol != "ROUNDROBIN"):
        out.append(Alternative(
            code="smb-multichannel",
            title=f"No LAGG: give each of the {len(members)} ports its own subnet and turn on SMB multichannel",
            read_bps=total_bps, write_bps=total_bps,
            why="one SMB session then spreads over every port in both directions (Samba >= 4.15; TrueNAS: "
                "smb.update({\"multichannel\": true})), which no hashed LAGG does for one client. The client needs as "
                "many ports, on the same subnets (or direct cables: tengig mesh). SMB multichannel does not work "
                "over a LAGG."))
    if goal == "aggregate-many-clients" and topology in ("unmanaged-switch", "many-clients"):
        out.append(Alternative(
            code="lacp-switch",
            title="A managed switch with the ports in an LACP group, and protocol LACP",
            read_bps=read_n.bps, write_bps=read_n.bps,
            why="the switch then hashes what the clients send across the members too, so writes to the NAS add up "
                "like reads; today the switch delivers everything for the LAGG through one port"))
    if goal != "failover" and protocol != "ROUNDROBIN" and round_robin_allowed(platform, topology):
        write = total_bps if topology == "switchless-peer" else min(m.goodput_bps for m in members)
        out.append(Alternative(
            code="round-robin",
            title="Protocol ROUNDROBIN (Linux balance-rr, FreeBSD roundrobin)",
            read_bps=total_bps, write_bps=write,
            why="it stripes even one flow over every member; on an unmanaged switch it balances only what the NAS "
                "sends (reads from the NAS ~2x, writes to it ~1x with 2 members, field report 002 (docs/physics.md §8))"))
    if platform == "linux" and goal == "aggregate-many-clients" and topology in ("unmanaged-switch", "many-clients"):
        out.append(Alternative(
            code="balance-alb",
            title="Linux mode balance-alb (adaptive load balancing)",
            read_bps=total_bps, write_bps=None,
            why="it also spreads what the clients send, by answering each client's ARP with another member's MAC, "
                "and needs nothing from the switch; field report 002 (docs/physics.md §8) measured writes of 12.8 Gb/s against 11.8 with "
                "round-robin over 2 x 10G: a small gain, not 2x. Not offered by TrueNAS"))
    return out


def notes(request: LaggRequest, protocol: LagProtocol, members: Sequence[LaggMember],
          throughput: Sequence[ExpectedThroughput]) -> list[PlanNote]:
    out: list[PlanNote] = []
    cards: dict[str, list[LaggMember]] = defaultdict(list)
    for m in members:
        cards[m.card or f"?{m.name}"].append(m)
    used_cards = set(cards)
    free_elsewhere = sorted({n.name for n in request.nics if n.card and n.card not in used_cards
                             and n.speed_bps == members[0].speed_bps and n.kind == "physical" and not n.in_use_by})
    for card, on_card in sorted(cards.items()):
        if len(on_card) > 1 and not card.startswith("?"):
            hint = (f"; {', '.join(free_elsewhere)} sit on other cards" if free_elsewhere else
                    "; add a card and put one member on each")
            out.append(PlanNote(
                code="shared-card", severity="warning",
                text=f"{' and '.join(m.name for m in on_card)} share card {card}, one PCIe link: a dual-port X540 "
                     f"topped out near 14 Gb/s in field report 001 (docs/physics.md §8) while two cards gave 20 Gb/s{hint}, or measure the card "
                     "and set options.card_limits_bps"))
    unknown = [m.name for m in members if not m.card]
    if unknown:
        out.append(PlanNote(code="card-unknown", severity="info",
                            text=f"the card of {', '.join(unknown)} is unknown: members may share one PCIe link"))
    read_n, write_n = throughput[1], throughput[3]
    if read_n.multiple >= 1.5 * write_n.multiple:
        out.append(PlanNote(
            code="one-way", severity="info",
            text=f"reads from the NAS ~{read_n.multiple:g}x, writes to it ~{write_n.multiple:g}x: "
                 "the LAGG balances only what the NAS sends"))
    if protocol in ("LACP", "LOADBALANCE") and request.goal == "one-client-faster":
        out.append(PlanNote(
            code="single-flow", severity="warning",
            text=f"one flow stays on one member ({format_rate(throughput[0].bps)}): one client goes faster only with "
                 "several flows (iperf3 -P, SMB multichannel without a LAGG), never with one copy over one connection"))
    if request.platform.startswith("truenas"):
        out.append(PlanNote(code="smb-multichannel", severity="info",
                            text="SMB multichannel does not work over a LAGG: clients use one connection through it"))
    for m in members:
        if m.carries_session:
            out.append(PlanNote(
                code="session-interface", severity="warning",
                text=f"{m.name} carries your connection: it drops when {m.name} joins the LAGG. Reconnect through the "
                     "LAGG's address; TrueNAS rolls the change back after 60 s without interface.checkin"))
        if m.clear_config:
            out.append(PlanNote(code="clear-config", severity="info",
                                text=f"{m.name}: its own {', '.join(m.clear_config)} will be removed"))
    if request.topology == "switchless-peer":
        out.append(PlanNote(code="peer-config", severity="info",
                            text="configure the peer's ports the same way (same protocol and MTU), one cable per member"))
    if request.options.mtu > 1500:
        out.append(PlanNote(
            code="jumbo-end-to-end", severity="info",
            text=f"MTU {request.options.mtu}: every client and switch port must take it; check with a don't-fragment "
                 f"ping of {request.options.mtu - 28} bytes before measuring (a mismatch can stall transfers)"))
    if request.options.address is None:
        out.append(PlanNote(code="no-address", severity="info",
                            text="no address: the LAGG carries nothing until it gets one (or VLANs on top)"))
    return out
