"""Checks that need the whole request, each error naming the input field it came from.

Where TrueNAS has its own check (`interface.create` for a LINK_AGGREGATION, docs/truenas-api.md §3) the message
is TrueNAS's, so a refusal reads the same before and after applying; `options.members.N` is the
member TrueNAS calls `interface_create.lag_ports.N` (same index). tengig adds its own: mixed speeds,
no link, the caller's own connection, round-robin where it cannot work. Errors are collected and
raised together, in the request's field order.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any


from .. import names
from ..errors import ValidationError, parse_model
from ..units import format_rate
from . import members as member_rules
from .protocols import NAME_PREFIX, NATIVE, PLATFORM_TITLE
from .request import LaggRequest

MTU_RANGE = {"truenas-core": (1492, 9216), "freebsd": (1492, 9216), "truenas-scale": (1280, 9216), "linux": (576, 9216)}
# Why a bound is what it is, where TrueNAS's own words do not say it (docs/truenas-api.md §3).
MTU_WHY = {"truenas-scale": ": below 1280 the kernel drops the port's IPv6 and TrueNAS's interface listing fails, "
                            "and with it its commit and rollback"}


def parse_request(request: LaggRequest | Mapping[str, Any]) -> LaggRequest:
    """A LaggRequest from a model or plain data; pydantic's errors become tengig's field-path errors."""
    return parse_model(LaggRequest, request, empty_path="request")


def check_request(request: LaggRequest) -> member_rules.Selection:
    """Every problem at once, in field order; otherwise the members (checked or picked)."""
    errors: list[tuple[str, str]] = []
    errors += _check_nics(request)
    selection = None
    if request.options.members is None and not errors:
        try:
            selection = member_rules.select(request)
        except ValidationError as exc:
            errors += exc.errors
    errors += _check_name(request)
    errors += _check_protocol(request)
    member_errors = _check_members(request)
    errors += member_errors
    if request.options.members is not None and request.options.member_count is not None:
        errors.append(("options.member_count", "give options.members or options.member_count, not both"))
    low, high = MTU_RANGE[request.platform]
    if not low <= request.options.mtu <= high:
        why = MTU_WHY.get(request.platform, "") if request.options.mtu < low else ""
        errors.append(("options.mtu", f"{PLATFORM_TITLE[request.platform]} takes an MTU of {low}..{high}, "
                                      f"not {request.options.mtu}{why}"))
    if selection is None and request.options.members is not None and not member_errors:
        selection = member_rules.select(request)
    errors += _check_address(request, [m.name for m in selection.members] if selection else [])
    if errors:
        raise ValidationError(errors)
    assert selection is not None
    return selection


def _check_nics(request: LaggRequest) -> list[tuple[str, str]]:
    errors, seen = [], {}
    check = names.freebsd_ifname if request.platform in ("truenas-core", "freebsd") else names.ifname
    for i, nic in enumerate(request.nics):
        try:
            check(nic.name, field=f"nics.{i}.name")
        except ValidationError as exc:
            errors += exc.errors
        if nic.name in seen:
            errors.append((f"nics.{i}.name", f"{nic.name!r} is already nics.{seen[nic.name]}; names must be unique"))
        seen.setdefault(nic.name, i)
    return errors


def default_name(request: LaggRequest) -> str:
    """The lowest free bondN/laggN. Plain Linux starts at bond1: loading the bonding module creates bond0
    by itself (max_bonds=1), and `ip link add bond0` then fails with 'File exists'."""
    prefix = NAME_PREFIX[request.platform]
    taken = {nic.name for nic in request.nics}
    n = 1 if request.platform == "linux" else 0
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def _check_name(request: LaggRequest) -> list[tuple[str, str]]:
    name = request.options.name
    if name is None:
        return []
    prefix = NAME_PREFIX[request.platform]
    if not re.fullmatch(rf"{prefix}\d{{1,4}}", name):
        return [("options.name", f'Link aggregation interface must start with "{prefix}" followed by an unique number.')]
    if name in {nic.name for nic in request.nics}:
        return [("options.name", "Interface name is already in use.")]
    return []


def _check_protocol(request: LaggRequest) -> list[tuple[str, str]]:
    protocol, platform, topology = request.options.protocol, request.platform, request.topology
    if protocol is None:
        return []
    field = "options.protocol"
    if protocol not in NATIVE[platform]:
        if platform == "truenas-scale":
            return [(field, f"TrueNAS SCALE does not support LAG protocol {protocol}")]
        return [(field, f"{PLATFORM_TITLE[platform]} has no {protocol} protocol; it offers "
                        f"{', '.join(NATIVE[platform])}")]
    if protocol == "NONE":
        return [(field, "NONE passes no traffic (lagg(4) 'none' only holds the ports); tengig plans LAGGs that carry "
                        "traffic: choose LACP, FAILOVER, LOADBALANCE or ROUNDROBIN")]
    if protocol == "ROUNDROBIN" and topology == "lacp-switch":
        return [(field, "round-robin never goes on an LACP switch: the switch expects LACP on these ports and hashes "
                        "each flow back onto one port; use LACP")]
    if protocol == "ROUNDROBIN" and topology == "many-clients":
        return [(field, "round-robin needs a direct cable or an unmanaged switch; on a switch tengig does not know it "
                        "may be blocked or reorder packets: if the switch is unmanaged, say topology unmanaged-switch")]
    if protocol == "LACP" and topology == "unmanaged-switch":
        return [(field, "an unmanaged switch does not speak LACP: with no partner the bond carries traffic on one "
                        "member at best; use LOADBALANCE, FAILOVER or (not on SCALE) ROUNDROBIN")]
    return []


def _check_members(request: LaggRequest) -> list[tuple[str, str]]:
    pinned = request.options.members
    if pinned is None:
        return []
    if len(pinned) < 2:
        return [("options.members", f"a LAGG needs at least 2 members; {len(pinned)} given")]
    errors: list[tuple[str, str]] = []
    by_name = {nic.name: nic for nic in request.nics}
    first: dict[str, int] = {}
    reference = None  # (index, nic): the first member whose speed is known sets the speed
    for i, name in enumerate(pinned):
        field = f"options.members.{i}"
        if name in first:
            errors.append((field, f"{name} is already options.members.{first[name]}"))
            continue
        first[name] = i
        nic = by_name.get(name)
        if nic is None:
            text = "Not a valid interface." if request.platform == "truenas-core" else f'"{name}" is not a valid interface.'
            errors.append((field, text))
            continue
        why = member_rules.problem(nic, request, pinned=True)
        if why is not None:
            errors.append((field, why))
            continue
        if reference is None:
            reference = (i, nic)
        elif nic.speed_bps != reference[1].speed_bps:
            errors.append((field, f"{name} runs at {format_rate(nic.speed_bps)} but {reference[1].name} "
                                  f"(options.members.{reference[0]}) at {format_rate(reference[1].speed_bps)}: a LAGG "
                                  "aggregates ports of one speed (LACP leaves the others standby); pick ports of one speed"))
    return errors


def _check_address(request: LaggRequest, members: list[str]) -> list[tuple[str, str]]:
    text = request.options.address
    if text is None:
        return []
    field = "options.address"
    try:
        iface = ipaddress.ip_interface(text)
    except ValueError:
        return [(field, f"{text!r} is not an address with prefix; write e.g. 10.20.0.5/24")]
    if iface.version != 4 or "/" not in text:
        return [(field, f"{text!r}: give an IPv4 address with its prefix length, e.g. 10.20.0.5/24")]
    net = iface.network
    if net.prefixlen < 31 and iface.ip in (net.network_address, net.broadcast_address):
        return [(field, f"{iface.ip} is the network or broadcast address of {net}; pick a host address")]
    members = set(members) | set(request.options.members or [])
    for nic in sorted(request.nics, key=lambda n: n.name):
        if nic.name in members or nic.name == request.options.name:
            continue  # a member's own addresses are cleared (or refused above)
        for other in member_rules.own_addresses(nic):
            try:
                other_net = ipaddress.ip_interface(other).network
            except ValueError:
                continue
            if other_net.version == 4 and other_net.overlaps(net):
                return [(field, f"The network {net} is already in use by another interface. ({nic.name} has {other})")]
    return []
