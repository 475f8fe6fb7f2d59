"""Which ports become members: the user's pick, checked, or the planner's, spread across cards.

A dual-port card shares one PCIe link between its ports (seed 001: a dual-port X540 topped out near
14 Gb/s, two cards gave 20): the planner takes one port per card first. Ports are walked in natural
name order (enp3s0f2 before enp3s0f10), never in input order, so a shuffled inventory gives the
same members.
"""
from __future__ import annotations

import ipaddress
from collections import defaultdict
from dataclasses import dataclass

from ..errors import ValidationError
from ..names import natural_key
from ..nic import Nic
from ..units import format_rate
from .models import SkippedNic
from .request import LaggRequest

TRUENAS = ("truenas-scale", "truenas-core")
DEFAULT_MTU = 1500


def own_addresses(nic: Nic) -> list[str]:
    """Addresses the port carries itself; IPv6 link-local (fe80::/10) comes with every up port and is no config."""
    kept = []
    for text in nic.addresses:
        try:
            if ipaddress.ip_interface(text).ip.is_link_local and ":" in text:
                continue
        except ValueError:
            pass
        kept.append(text)
    return kept


def own_config(nic: Nic, request: LaggRequest) -> list[str]:
    """What the port has configured on itself: addresses, and on TrueNAS an MTU other than the default
    (TrueNAS only sets a physical port's MTU from its saved config, and refuses such a port as a member)."""
    config = [f"address {a}" for a in own_addresses(nic)]
    if request.platform in TRUENAS and nic.mtu != DEFAULT_MTU:
        config.append(f"MTU {nic.mtu}")
    return config


def problem(nic: Nic, request: LaggRequest, *, pinned: bool) -> str | None:
    """Why this port cannot be a member, worded as TrueNAS words it where TrueNAS has a word; None if it can.
    The first problem only, in the order TrueNAS checks (then tengig's own)."""
    allowed = ("physical", "virtual") if pinned else ("physical",)
    if nic.kind not in allowed:
        return f"{nic.name} is a {nic.kind} interface, not a port; members must be physical ports"
    if nic.in_use_by:
        return f"Interface {nic.name} is currently in use by {nic.in_use_by}."
    if nic.link == "down":
        return (f"{nic.name} has no link (no cable, or nothing answering at the far end): a member without link "
                "carries nothing; plug it in or leave it out")
    if nic.carries_session and not request.options.confirm_session_interface:
        return (f"{nic.name} carries this session (the connection you are using now): making it a member drops "
                "its address and may cut you off; set options.confirm_session_interface to go ahead")
    config = own_config(nic, request)
    if config and not request.options.clear_member_config:
        return (f"Interface {nic.name} is currently in use: it has its own {', '.join(config)}; clear it first, "
                "or set options.clear_member_config to have the plan clear it")
    if not nic.speed_bps:
        return f"{nic.name} does not report its speed: tengig cannot plan throughput over it"
    return None


@dataclass(frozen=True)
class Selection:
    members: list[Nic]
    skipped: list[SkippedNic]


def card_key(nic: Nic) -> str:
    """Ports with no known card count as a card of their own (we cannot tell what they share)."""
    return nic.card if nic.card else f"?{nic.name}"


def select(request: LaggRequest) -> Selection:
    """The members, in order. Pinned members were checked by validate.check_request already."""
    nics = sorted(request.nics, key=lambda n: natural_key(n.name))
    pinned = request.options.members
    if pinned is not None:
        by_name = {n.name: n for n in request.nics}
        members = [by_name[name] for name in pinned]
        skipped = [SkippedNic(name=n.name, reason="not in options.members") for n in nics if n.name not in pinned]
        return Selection(members, skipped)

    skipped: list[SkippedNic] = []
    usable: list[Nic] = []
    for nic in nics:
        why = problem(nic, request, pinned=False)
        if why is None:
            usable.append(nic)
        elif nic.kind in ("physical", "virtual"):
            skipped.append(SkippedNic(name=nic.name, reason=why))
    by_speed: dict[int, list[Nic]] = defaultdict(list)
    for nic in usable:
        by_speed[nic.speed_bps].append(nic)
    wanted = request.options.member_count
    # The speed whose ports add up to the most; the faster one on a tie.
    def total(speed: int) -> tuple[int, int]:
        count = len(by_speed[speed]) if wanted is None else min(wanted, len(by_speed[speed]))
        return (speed * count if count >= 2 else 0, speed)

    speed = max(by_speed, key=total, default=None)
    group = by_speed.get(speed, []) if speed is not None else []
    if len(group) < 2:
        reasons = "; ".join(f"{s.name}: {s.reason}" for s in skipped) or "no other ports listed"
        raise ValidationError.one(
            "nics", f"a LAGG needs 2 usable ports of one speed and there are {len(group)} "
            f"({', '.join(n.name for n in group) or 'none'}); the others cannot be members: {reasons}")
    if wanted is not None and wanted > len(group):
        raise ValidationError.one(
            "options.member_count",
            f"{wanted} members asked for, but only {len(group)} usable ports run at {format_rate(speed)}: "
            f"{', '.join(n.name for n in group)}")
    for nic in usable:
        if nic.speed_bps != speed:
            skipped.append(SkippedNic(
                name=nic.name, reason=f"runs at {format_rate(nic.speed_bps)}; the members run at {format_rate(speed)} "
                "and a LAGG aggregates one speed"))
    members = _spread(group, wanted)
    chosen = {n.name for n in members}
    spare = ("spare: one member per card already (options.member_count adds more)" if wanted is None
             else f"spare: options.member_count is {wanted}")
    skipped += [SkippedNic(name=n.name, reason=spare) for n in group if n.name not in chosen]
    order = {n.name: i for i, n in enumerate(nics)}
    return Selection(members, sorted(skipped, key=lambda s: order[s.name]))


def _spread(group: list[Nic], wanted: int | None) -> list[Nic]:
    """One port per card in turn (cards in natural order of their first port); the caller's own port last."""
    cards: dict[str, list[Nic]] = defaultdict(list)
    for nic in sorted(group, key=lambda n: (n.carries_session, natural_key(n.name))):
        cards[card_key(nic)].append(nic)
    count = wanted if wanted is not None else max(2, len(cards))
    ordered = sorted(cards.values(), key=lambda ports: (ports[0].carries_session, natural_key(ports[0].name)))
    members: list[Nic] = []
    depth = 0
    while len(members) < count:
        for ports in ordered:
            if depth < len(ports) and len(members) < count:
                members.append(ports[depth])
        depth += 1
    return members
