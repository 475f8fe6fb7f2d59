"""Protocol vocabulary per platform, and which protocol fits which topology and goal.

TrueNAS's names are tengig's own (LACP, FAILOVER, LOADBALANCE, ROUNDROBIN, NONE); each platform
calls them something else (docs/truenas-api.md §3, docs/physics.md §3):

| TrueNAS     | Linux bonding | FreeBSD lagg(4) | SCALE | CORE |
|-------------|---------------|-----------------|-------|------|
| LACP        | 802.3ad       | lacp            | yes   | yes  |
| FAILOVER    | active-backup | failover        | yes   | yes  |
| LOADBALANCE | balance-xor   | loadbalance     | yes   | yes  |
| ROUNDROBIN  | balance-rr    | roundrobin      | no    | yes  |
| NONE        | (none)        | none            | no    | yes  |
"""
from __future__ import annotations

from .request import Goal, LagProtocol, Platform, Topology

NATIVE: dict[Platform, dict[LagProtocol, str]] = {
    "truenas-scale": {"LACP": "LACP", "FAILOVER": "FAILOVER", "LOADBALANCE": "LOADBALANCE"},
    "truenas-core": {p: p for p in ("LACP", "FAILOVER", "LOADBALANCE", "ROUNDROBIN", "NONE")},
    "linux": {"LACP": "802.3ad", "FAILOVER": "active-backup", "LOADBALANCE": "balance-xor", "ROUNDROBIN": "balance-rr"},
    "freebsd": {"LACP": "lacp", "FAILOVER": "failover", "LOADBALANCE": "loadbalance", "ROUNDROBIN": "roundrobin",
                "NONE": "none"},
}

PLATFORM_TITLE: dict[Platform, str] = {
    "truenas-scale": "TrueNAS SCALE", "truenas-core": "TrueNAS CORE", "linux": "Linux bonding", "freebsd": "FreeBSD lagg",
}

# Protocols that hash each flow onto one member (docs/physics.md §3).
HASHED: frozenset[LagProtocol] = frozenset({"LACP", "LOADBALANCE"})

# Hash names: TrueNAS's API, Linux's xmit_hash_policy, FreeBSD's lagghash.
HASH_LINUX = {"LAYER2": "layer2", "LAYER2+3": "layer2+3", "LAYER3+4": "layer3+4"}
HASH_FREEBSD = {"LAYER2": "l2", "LAYER2+3": "l2,l3", "LAYER3+4": "l3,l4"}
DEFAULT_HASH = "LAYER3+4"  # spreads one client's several flows and clients behind one router
DEFAULT_LACPDU_RATE = "FAST"  # a dead member is noticed in ~3 s instead of ~90 s

NAME_PREFIX: dict[Platform, str] = {"truenas-scale": "bond", "linux": "bond", "truenas-core": "lagg", "freebsd": "lagg"}


def native_name(platform: Platform, protocol: LagProtocol) -> str | None:
    return NATIVE[platform].get(protocol)


def round_robin_allowed(platform: Platform, topology: Topology) -> bool:
    """Round-robin stripes one flow, so it only makes sense where nothing hashes in between: a direct
    cable or an unmanaged switch. Never with an LACP switch (it expects LACP and hashes back), never
    on a switch we do not know, and SCALE does not offer it."""
    return "ROUNDROBIN" in NATIVE[platform] and topology in ("unmanaged-switch", "switchless-peer")


def choose(platform: Platform, topology: Topology, goal: Goal) -> tuple[LagProtocol, str]:
    """The protocol the planner proposes, and why in words."""
    if goal == "failover":
        return "FAILOVER", (
            "failover keeps one member active and moves to the next when its link drops; it needs nothing "
            "from the switch and survives a cable, port or (with members on two cards) a card"
        )
    if topology in ("lacp-switch", "switchless-peer") and not (
        topology == "switchless-peer" and round_robin_allowed(platform, topology) and goal == "one-client-faster"
    ):
        where = "the switch" if topology == "lacp-switch" else "the peer"
        return "LACP", (
            f"LACP negotiates the group with {where} and both sides hash per flow: many flows add up in both "
            "directions, one flow stays on one member"
        )
    if round_robin_allowed(platform, topology):
        if topology == "switchless-peer":
            return "ROUNDROBIN", (
                "round-robin is the only protocol that stripes one flow over every member; on direct cables to a "
                "peer that runs round-robin too, both directions are striped"
            )
        return "ROUNDROBIN", (
            "round-robin is the only protocol that stripes one flow over every member, and an unmanaged switch "
            "does not hash in between; it balances only what the NAS sends"
        )
    reason = {
        "unmanaged-switch": "an unmanaged switch does not speak LACP",
        "many-clients": "a switch we do not know may not speak LACP and may not take round-robin's reordering",
        "switchless-peer": "the peer must speak LACP too",
        "lacp-switch": "",
    }[topology]
    extra = "; SCALE does not offer round-robin" if platform == "truenas-scale" and topology == "unmanaged-switch" else ""
    return "LOADBALANCE", (
        f"{reason}{extra}: load balance hashes each flow onto one member for what the NAS sends, with no "
        "negotiation; what the NAS receives comes in on one member"
    )
