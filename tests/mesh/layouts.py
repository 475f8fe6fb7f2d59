"""Requests the mesh tests share: seed 000's trio (desk, nas, homelab; six 10G ports, three DACs)
in two OS mixes, the lab's own hosts and ports, and generated large meshes."""
from __future__ import annotations

import copy
import random

TEN_G = 10 * 10**9


def port(name: str, card: str | None = None, speed="10g", peer: str | None = None) -> dict:
    data = {"name": name, "speed_bps": speed}
    if card is not None:
        data["card"] = card
    if peer is not None:
        data["peer"] = peer
    return data


def seed000_scale() -> dict:
    """Seed 000 today: the NAS on SCALE (one dual-port Chelsio), the desktop on Windows 10 (two
    single-port ConnectX-2), the homelab on Linux (dual-port Chelsio); jumbo frames, defaults otherwise."""
    return {
        "hosts": [
            {"name": "desk", "kind": "windows", "ports": [port("Ethernet 2", "MNPA19-XTR #1"), port("Ethernet 3", "MNPA19-XTR #2")]},
            {"name": "nas", "kind": "truenas-scale", "ports": [port("enp3s0f0", "S320E"), port("enp3s0f1", "S320E")]},
            {"name": "lab", "kind": "linux", "ports": [port("enp4s0f0", "S320E"), port("enp4s0f1", "S320E")]},
        ],
        "existing_networks": ["10.0.0.0/24"],
        "options": {"mtu": 9000},
    }


def seed000_core() -> dict:
    """Seed 000 as written: FreeNAS (CORE) and a FreeBSD homelab, the whole 10.0.0.0/8 for the home
    with the gigabit LAN on 10.0.0.0/24, and a class C (/24) per 10G link."""
    return {
        "hosts": [
            {"name": "desk", "kind": "windows", "ports": [port("Ethernet 2", "MNPA19-XTR #1"), port("Ethernet 3", "MNPA19-XTR #2")]},
            {"name": "nas", "kind": "truenas-core", "ports": [port("cxgb0", "S320E"), port("cxgb1", "S320E")]},
            {"name": "lab", "kind": "freebsd", "ports": [port("cxgb0", "S320E"), port("cxgb1", "S320E")]},
        ],
        "existing_networks": ["10.0.0.0/24"],
        "options": {"address_pool": "10.0.0.0/8", "prefix": 24},
    }


def lab_hosts(pinned: bool = True) -> dict:
    """The lab's trio with its veth names: on host X the port to Y is eth-Y (docs/lab.md §2)."""
    names = ("nas", "desk", "lab")
    return {
        "hosts": [
            {
                "name": host,
                "kind": "linux",
                "ports": [port(f"eth-{peer}", peer=peer if pinned else None) for peer in names if peer != host],
            }
            for host in names
        ],
    }


def full_mesh(n: int, *, ports_per_card: int = 4, extra_ports: int = 0) -> dict:
    """n Linux hosts, each with n-1 (+extra) 10G ports on quad-port cards."""
    return {
        "hosts": [
            {
                "name": f"h{i:03d}",
                "kind": "linux",
                "ports": [port(f"enp{k // ports_per_card + 1}s0f{k % ports_per_card}", f"card{k // ports_per_card}")
                          for k in range(n - 1 + extra_ports)],
            }
            for i in range(n)
        ],
        "options": {"address_pool": "10.250.0.0/16", "prefix": 30},
    }


def shuffled(request: dict, seed: int) -> dict:
    """The same request with hosts, ports and existing networks in another order."""
    rng = random.Random(seed)
    out = copy.deepcopy(request)
    rng.shuffle(out["hosts"])
    for host in out["hosts"]:
        rng.shuffle(host["ports"])
    if "existing_networks" in out:
        rng.shuffle(out["existing_networks"])
    return out


# A TrueNAS SCALE and two Linux hosts, two 10G ports each, in the API's request form (names, not
# models): what the API tests and the real-middlewared tests send to tengig.mesh.plan.
THREE_HOSTS_10G = {"hosts": [
    {"name": "nas", "kind": "truenas-scale", "ports": [{"name": "enp3s0f0", "speed_bps": "10g"},
                                                       {"name": "enp3s0f1", "speed_bps": "10g"}]},
    {"name": "desk", "kind": "linux", "ports": [{"name": "enp4s0f0", "speed_bps": "10g"},
                                                 {"name": "enp4s0f1", "speed_bps": "10g"}]},
    {"name": "lab", "kind": "linux", "ports": [{"name": "enp5s0f0", "speed_bps": "10g"},
                                                {"name": "enp5s0f1", "speed_bps": "10g"}]}]}
