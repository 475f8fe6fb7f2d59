"""plan_mesh: a switchless full mesh from a MeshRequest (pure, deterministic, no I/O).

Every host pair gets one direct cable on its own subnet; each host resolves each peer's name to
the peer's address on their shared cable (seed 000). Hosts are sorted by name and ports in
natural order, so the same request in any order gives the same plan, byte for byte.
"""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from ..units import format_rate
from ..verdict.ceilings import tcp_goodput_bps
from . import addressing, costs, labels
from ..names import natural_key
from .cabling import Wire, wire_mesh
from .models import (
    CableEnd,
    Diagram,
    DiagramEdge,
    DiagramNode,
    HostPlan,
    HostPort,
    HostsEntry,
    MeshCable,
    MeshPlan,
    PlanNote,
)
from .request import MeshHost, MeshOptions, MeshRequest
from .validate import check_request, parse_request


def plan_mesh(request: MeshRequest | Mapping[str, Any]) -> MeshPlan:
    """The whole plan, or a ValidationError listing (field path, message) pairs."""
    request = parse_request(request)
    check_request(request)
    options = request.options
    pool = addressing.parse_pool(options.address_pool)
    existing = addressing.parse_existing(request.existing_networks)

    input_index = {h.name: i for i, h in enumerate(request.hosts)}
    hosts = sorted(request.hosts, key=lambda h: h.name)
    number = {h.name: i + 1 for i, h in enumerate(hosts)}  # .N on /24 links
    wires = wire_mesh(hosts, input_index)
    subnets = addressing.allocate_subnets(pool, options.prefix, len(wires), existing)

    width = max(2, len(str(len(wires))))
    cables = [_cable(f"C{i + 1:0{width}d}", wire, subnet, number, options) for i, (wire, subnet) in enumerate(zip(wires, subnets))]
    by_host: dict[str, list[MeshCable]] = defaultdict(list)
    for cable in cables:
        by_host[cable.a.host].append(cable)
        by_host[cable.b.host].append(cable)
    host_plans = [_host_plan(host, by_host[host.name], options.name_suffix) for host in hosts]
    all_labels = labels.make_labels(cables)
    n = len(hosts)
    return MeshPlan(
        options=options,
        hosts=host_plans,
        cables=cables,
        labels=all_labels,
        labels_text=labels.labels_text(all_labels, cables),
        labels_csv=labels.labels_csv(all_labels),
        counts=costs.count(n, sum(len(h.ports) for h in hosts)),
        cost=costs.estimate(n, options.prices),
        break_even=costs.break_even(n, options.prices),
        diagram=_diagram(host_plans, cables),
        notes=_notes(hosts, cables, options, pool),
    )


def _cable(cable_id: str, wire: Wire, subnet, number: Mapping[str, int], options: MeshOptions) -> MeshCable:
    address_a, address_b = addressing.link_addresses(subnet, number[wire.a], number[wire.b])
    return MeshCable(
        id=cable_id,
        a=CableEnd(host=wire.a, port=wire.port_a.name, card=wire.port_a.card, address=address_a),
        b=CableEnd(host=wire.b, port=wire.port_b.name, card=wire.port_b.card, address=address_b),
        speed_bps=wire.speed_bps,
        subnet=str(subnet),
        prefix=subnet.prefixlen,
        mtu=options.mtu,
        goodput_bps=tcp_goodput_bps(wire.speed_bps, options.mtu),
    )


def _host_plan(host: MeshHost, cables: list[MeshCable], suffix: str) -> HostPlan:
    """`cables` are this host's own cables."""
    mine = sorted(cables, key=lambda c: c.far_end_of(host.name).host)
    used = {}
    entries = []
    for cable in mine:
        end, far = cable.end_of(host.name), cable.far_end_of(host.name)
        used[end.port] = HostPort(
            port=end.port, card=end.card, speed_bps=cable.speed_bps, cable=cable.id, peer=far.host,
            address=f"{end.address}/{cable.prefix}",
        )
        entries.append(HostsEntry(address=far.address, name=far.host + suffix, peer=far.host, cable=cable.id))
    spares = [
        HostPort(port=p.name, card=p.card, speed_bps=p.speed_bps, cable=None, peer=None, address=None)
        for p in sorted(host.ports, key=lambda p: natural_key(p.name))
        if p.name not in used
    ]
    return HostPlan(name=host.name, kind=host.kind, ports=list(used.values()) + spares, hosts_entries=entries)


def _diagram(hosts: list[HostPlan], cables: list[MeshCable]) -> Diagram:
    """Hosts evenly on a circle, the first at the top, going clockwise: stable for the same plan."""
    n = len(hosts)
    nodes = []
    for i, host in enumerate(hosts):
        angle = 2 * math.pi * i / n
        nodes.append(DiagramNode(
            id=host.name, label=host.name, kind=host.kind,
            x=round(0.5 + 0.45 * math.sin(angle), 4), y=round(0.5 - 0.45 * math.cos(angle), 4),
        ))
    edges = [
        DiagramEdge(
            id=c.id, source=c.a.host, target=c.b.host, source_port=c.a.port, target_port=c.b.port,
            label=f"{format_rate(c.speed_bps)} {c.subnet}", speed_bps=c.speed_bps,
        )
        for c in cables
    ]
    return Diagram(nodes=nodes, edges=edges)


def _notes(hosts: list[MeshHost], cables: list[MeshCable], options: MeshOptions, pool) -> list[PlanNote]:
    notes = []
    if not addressing.is_private(pool):
        notes.append(PlanNote(
            code="pool-not-private", severity="warning", host=None,
            text=f"{pool} is not private address space (RFC 1918): the links may hide real addresses on the internet",
        ))
    # A dual-port card shares one PCIe link; two full-rate cables on it may not both run at line rate.
    per_card: dict[tuple[str, str], list[MeshCable]] = defaultdict(list)
    for cable in cables:
        for end in (cable.a, cable.b):
            if end.card:
                per_card[(end.host, end.card)].append(cable)
    for (host, card), on_card in sorted(per_card.items()):
        if len(on_card) > 1:
            notes.append(PlanNote(
                code="shared-card", severity="info", host=host,
                text=f"{host}: cables {', '.join(c.id for c in on_card)} share card {card}; check its PCIe "
                "width and generation can carry them all at once (docs/physics.md §4: a dual-port X540 reached ~14 Gb/s)",
            ))
    for host in hosts:
        if host.kind == "windows" and options.mtu > 1500 and options.mtu + 14 not in (4088, 9014):
            notes.append(PlanNote(
                code="windows-jumbo-value", severity="warning", host=host.name,
                text=f"{host.name}: Windows drivers take a *JumboPacket from their own list (commonly 1514, 4088, "
                f"9014); MTU {options.mtu} needs {options.mtu + 14}, which many refuse. MTU 9000 is the safe jumbo",
            ))
    if options.mtu > 1500:
        notes.append(PlanNote(
            code="jumbo-end-to-end", severity="info", host=None,
            text=f"MTU {options.mtu} on every mesh port: check each link with a don't-fragment ping of "
            f"{options.mtu - 28} bytes before measuring (a mismatch can stall transfers)",
        ))
    return notes
