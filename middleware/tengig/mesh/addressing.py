"""Carve one subnet per cable out of the address pool, clear of every existing network.

Pure integer arithmetic on IPv4 ranges: a large existing network inside the pool is jumped over
in one step, so a /8 pool with a /9 already in use does not cost millions of iterations.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ValidationError

_RFC1918 = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]


@dataclass(frozen=True)
class ExistingNetwork:
    field: str  # where it came from in the request, e.g. "existing_networks.2"
    network: ipaddress.IPv4Network


def parse_pool(text: str, *, field: str = "options.address_pool") -> ipaddress.IPv4Network:
    try:
        pool = ipaddress.IPv4Network(text, strict=True)
    except ValueError as exc:
        raise ValidationError.one(field, f"{text!r} is not an IPv4 network in CIDR form, e.g. 10.250.0.0/16 ({exc})") from exc
    return pool


def parse_existing(texts: Sequence[str], *, field: str = "existing_networks") -> list[ExistingNetwork]:
    """Interface notation (192.168.1.10/24) is accepted: the whole network it sits on is in use."""
    parsed, errors = [], []
    for i, text in enumerate(texts):
        try:
            parsed.append(ExistingNetwork(f"{field}.{i}", ipaddress.ip_network(text, strict=False)))
        except ValueError:
            errors.append((f"{field}.{i}", f"{text!r} is not a network in CIDR form, e.g. 192.168.1.0/24"))
    if errors:
        raise ValidationError(errors)
    return [e for e in parsed if e.network.version == 4]  # an IPv6 LAN cannot collide with IPv4 links


def is_private(pool: ipaddress.IPv4Network) -> bool:
    return any(pool.subnet_of(net) for net in _RFC1918)


def allocate_subnets(
    pool: ipaddress.IPv4Network, prefix: int, count: int, existing: Sequence[ExistingNetwork]
) -> list[ipaddress.IPv4Network]:
    """The first `count` subnets of size /prefix in the pool that touch no existing network.

    Raises a ValidationError naming the input to change: the existing network that covers the
    whole pool, or the pool (with how many subnets it would need to hold).
    """
    if prefix < pool.prefixlen:
        raise ValidationError.one(
            "options.prefix", f"a /{prefix} per link does not fit in the pool {pool} (/{pool.prefixlen}); "
            f"use a pool of /{prefix} or larger, or a longer prefix"
        )
    for net in existing:
        if pool.subnet_of(net.network):
            raise ValidationError.one(
                net.field, f"{net.network} covers the whole address pool {pool}: no link subnet could avoid it; "
                "choose an options.address_pool outside it"
            )
    size = 1 << (32 - prefix)
    start, end = int(pool.network_address), int(pool.broadcast_address)
    taken = sorted(
        (max(int(n.network.network_address), start), min(int(n.network.broadcast_address), end))
        for n in existing
        if n.network.overlaps(pool)
    )
    subnets: list[ipaddress.IPv4Network] = []
    candidate, i = start, 0
    while len(subnets) < count and candidate + size - 1 <= end:
        last = candidate + size - 1
        while i < len(taken) and taken[i][1] < candidate:
            i += 1
        if i < len(taken) and taken[i][0] <= last:
            # Jump past the clashing range, staying aligned to the subnet size.
            candidate = ((taken[i][1] + 1 + size - 1) // size) * size
            continue
        subnets.append(ipaddress.IPv4Network((candidate, prefix)))
        candidate += size
    if len(subnets) < count:
        in_use = ", ".join(str(n.network) for n in existing if n.network.overlaps(pool))
        clear = f" clear of {in_use}" if in_use else ""
        raise ValidationError.one(
            "options.address_pool",
            f"{pool} holds only {len(subnets)} /{prefix} subnets{clear}, and the mesh needs {count} "
            f"(one per cable); use a larger pool or a longer prefix",
        )
    return subnets


def link_addresses(subnet: ipaddress.IPv4Network, number_a: int, number_b: int) -> tuple[str, str]:
    """Addresses of the two ends. /31: both addresses (RFC 3021). /30: the two usable ones.

    /24: host number N is .N on every link, like seed 000 and the lab, so an address tells a
    human which machine it belongs to.
    """
    base = subnet.network_address
    if subnet.prefixlen == 31:
        return str(base), str(base + 1)
    if subnet.prefixlen == 30:
        return str(base + 1), str(base + 2)
    return str(base + number_a), str(base + number_b)
