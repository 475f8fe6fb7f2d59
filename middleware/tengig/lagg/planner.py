"""plan_lagg: a link aggregation for a NAS from its NIC inventory (pure, deterministic, no I/O).

Chooses the protocol from platform, topology and goal (or checks the one asked for), picks members
spread across cards, and says what to expect per direction for one flow and for many, with the
reason in words, and what would serve the goal better.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from ..verdict.ceilings import tcp_goodput_bps
from . import advice, protocols
from .members import own_config
from .models import LaggMember, LaggPlan
from .request import LaggRequest
from .throughput import card_capacity, estimate
from .validate import check_request, default_name, parse_request


def plan_lagg(request: LaggRequest | Mapping[str, Any]) -> LaggPlan:
    """The plan, or a ValidationError listing (field path, message) pairs in request order."""
    request = parse_request(request)
    selection = check_request(request)
    options = request.options
    if options.protocol is not None:
        protocol, reason = options.protocol, "asked for in options.protocol"
    else:
        protocol, reason = protocols.choose(request.platform, request.topology, request.goal)
    clear = options.clear_member_config
    members = [
        LaggMember(
            name=nic.name, card=nic.card, speed_bps=nic.speed_bps,
            goodput_bps=tcp_goodput_bps(nic.speed_bps, options.mtu),
            clear_config=own_config(nic, request) if clear else [],
            carries_session=nic.carries_session,
        )
        for nic in selection.members
    ]
    throughput = estimate(
        protocol=protocol, topology=request.topology, members=members, card_limits=options.card_limits_bps,
        mtu=options.mtu, client_count=request.client_count, client_link_bps=request.client_link_bps,
        flows=request.flow_count(),
    )
    total, _, _ = card_capacity(members, options.card_limits_bps)
    hashed = protocol in protocols.HASHED
    return LaggPlan(
        platform=request.platform,
        topology=request.topology,
        goal=request.goal,
        name=options.name or default_name(request),
        protocol=protocol,
        protocol_native=protocols.native_name(request.platform, protocol),
        protocol_reason=reason,
        members=members,
        xmit_hash_policy=protocols.DEFAULT_HASH if hashed else None,
        lacpdu_rate=protocols.DEFAULT_LACPDU_RATE if protocol == "LACP" else None,
        mtu=options.mtu,
        address=str(ipaddress.ip_interface(options.address)) if options.address else None,
        flows=request.flow_count(),
        throughput=throughput,
        alternatives=advice.alternatives(request, protocol, members, total, throughput),
        skipped=selection.skipped,
        notes=advice.notes(request, protocol, members, throughput),
    )
