"""From a LabSpec to concrete names, addresses and shaping (pure, deterministic).

Numbering: host i (1-based, in spec order) is .i on every link it has; the link between hosts
i < j is 10.250.ij.0/24 (nas=1, desk=2, lab=3: nas-desk is 10.250.12.0/24, nas is 10.250.12.1).
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from ..errors import ValidationError
from ..names import hostname
from ..verdict.ceilings import tbf_rate_for_ethernet
from .spec import LabSpec, all_links, link_key

PREFIX = "tg"  # every namespace, veth and pool the lab creates starts with this (its cgroup: instance.py)
NETNS_PREFIX = f"{PREFIX}-"
POOL_NAME = f"{PREFIX}tank"
SHARE_DATASET = f"{POOL_NAME}/smb"
SHARE_NAME = "share"
ADDRESS_BASE = "10.250"
MIN_BURST = 64 * 1024
TBF_LATENCY_MS = 10
# Burst = 8 ms of traffic, not the 1 ms that is enough on an idle machine: on a busy VM a 1 ms bucket
# empties whenever the tbf watchdog fires late (measurements in docs/lab.md §3).
BURST_MS = 8


@dataclass(frozen=True)
class Port:
    host: str
    netns: str
    ifname: str
    address: str | None  # "10.250.12.1/24" or None in bare mode


@dataclass(frozen=True)
class Shaping:
    line_rate_bps: int
    tbf_rate_bps: int
    burst_bytes: int
    latency_ms: int = TBF_LATENCY_MS


@dataclass(frozen=True)
class Cable:
    name: str  # canonical link key, e.g. "desk-nas"
    a: Port
    b: Port
    subnet: str | None
    shaping: Shaping | None  # None: unshaped veth
    mtu: int

    def port_of(self, host: str) -> Port:
        return self.a if self.a.host == host else self.b

    def peer_of(self, host: str) -> Port:
        return self.b if self.a.host == host else self.a


@dataclass(frozen=True)
class LabPlan:
    spec: LabSpec
    cables: tuple[Cable, ...]
    hosts_entries: dict[str, tuple[tuple[str, str], ...]]  # host -> ((address, name), ...)

    def netns(self, host: str) -> str:
        if host not in self.spec.hosts:
            raise ValidationError.one("host", f"unknown host {host!r}; the lab's hosts are {', '.join(self.spec.hosts)}")
        return netns_name(host)

    def cable(self, a: str, b: str) -> Cable:
        key = link_key(a, b)
        for cable in self.cables:
            if cable.name == key:
                return cable
        raise ValidationError.one("link", f"no cable {key}; the lab's cables are {', '.join(c.name for c in self.cables)}")

    def address_of(self, host: str, peer: str) -> str:
        """The address of `host` on its direct cable to `peer` (no prefix length)."""
        port = self.cable(host, peer).port_of(host)
        if port.address is None:
            raise ValidationError.one("host", "the lab is bare: the cables have no addresses yet")
        return port.address.split("/")[0]


def netns_name(host: str) -> str:
    return NETNS_PREFIX + host


def port_name(peer: str) -> str:
    """The interface on a host that is cabled to `peer`."""
    return f"eth-{peer}"


def shaping_for(line_rate_bps: int, mtu: int) -> Shaping:
    tbf_rate = tbf_rate_for_ethernet(line_rate_bps, mtu)
    burst = max(MIN_BURST, int(tbf_rate / 8 / 1000 * BURST_MS), 2 * (mtu + 14))
    return Shaping(line_rate_bps=line_rate_bps, tbf_rate_bps=int(round(tbf_rate)), burst_bytes=burst)


def plan_lab(spec: LabSpec) -> LabPlan:
    if not 2 <= len(spec.hosts) <= 9:
        raise ValidationError.one("hosts", "a lab has 2 to 9 hosts")
    if len(set(spec.hosts)) != len(spec.hosts):
        raise ValidationError.one("hosts", "host names must be unique")
    for i, host in enumerate(spec.hosts):
        hostname(host, field=f"hosts.{i}")
    known = {link_key(a, b) for a, b in all_links(spec.hosts)}
    for key in spec.links:
        if key not in known:
            raise ValidationError.one(f"links.{key}", f"no such cable; the lab's cables are {', '.join(sorted(known))}")
    number = {host: i + 1 for i, host in enumerate(spec.hosts)}
    cables = []
    for a, b in all_links(spec.hosts):
        lo, hi = sorted((a, b), key=number.__getitem__)
        subnet = None if spec.bare else f"{ADDRESS_BASE}.{number[lo]}{number[hi]}.0/24"

        def port(host: str, peer: str) -> Port:
            addr = None
            if subnet is not None:
                net = ipaddress.ip_network(subnet)
                addr = f"{net.network_address + number[host]}/{net.prefixlen}"
            return Port(host=host, netns=netns_name(host), ifname=port_name(peer), address=addr)

        key = link_key(a, b)
        rate = spec.rate(key)
        cables.append(
            Cable(
                name=key,
                a=port(a, b),
                b=port(b, a),
                subnet=subnet,
                shaping=None if rate is None else shaping_for(rate, spec.mtu),
                mtu=spec.mtu,
            )
        )
    entries: dict[str, tuple[tuple[str, str], ...]] = {}
    for host in spec.hosts:
        rows = []
        if not spec.bare:
            for cable in cables:
                if host in (cable.a.host, cable.b.host):
                    peer = cable.peer_of(host)
                    rows.append((peer.address.split("/")[0], peer.host))
        entries[host] = tuple(sorted(rows, key=lambda r: spec.hosts.index(r[1])))
    return LabPlan(spec=spec, cables=tuple(cables), hosts_entries=entries)


def render_hosts_file(host: str, entries: tuple[tuple[str, str], ...]) -> str:
    """The namespace's /etc/hosts: localhost, the host's own name, then each peer on its direct link."""
    lines = [
        "127.0.0.1\tlocalhost",
        f"127.0.1.1\t{host}",
        "::1\tlocalhost ip6-localhost ip6-loopback",
    ]
    if entries:
        lines.append("# tengig lab: each peer name resolves to its direct cable")
        lines += [f"{addr}\t{name}" for addr, name in entries]
    return "\n".join(lines) + "\n"
