"""NIC inventories the LAGG tests share: seed 001's and seed 002's NAS (two dual-port Intel X540-T2
cards) in each platform's port names, plus the caller's own management port."""
from __future__ import annotations

import copy
import random

TEN_G = 10 * 10**9
ONE_G = 10**9

# Port names per platform: two dual-port X540s (ixgbe on Linux, ix on FreeBSD) and an onboard 1G port.
PORTS = {
    "linux": (("enp3s0f0", "enp3s0f1"), ("enp4s0f0", "enp4s0f1"), "eno1"),
    "truenas-scale": (("enp3s0f0", "enp3s0f1"), ("enp4s0f0", "enp4s0f1"), "eno1"),
    "truenas-core": (("ix0", "ix1"), ("ix2", "ix3"), "igb0"),
    "freebsd": (("ix0", "ix1"), ("ix2", "ix3"), "igb0"),
}
CARDS = ("0000:03:00", "0000:04:00")


def nic(name: str, card: str | None, *, speed: int | None = TEN_G, function: int = 0, **changes) -> dict:
    data = {
        "name": name, "kind": "physical", "mac": None, "link": "up", "speed_bps": speed, "duplex": "full",
        "mtu": 1500, "driver": "ixgbe", "pci_slot": f"{card}.{function}" if card else None, "card": card,
        "addresses": [], "in_use_by": None, "carries_session": False, "link_flaps": 0,
    }
    data.update(changes)
    return data


def inventory(platform: str, *, cards: int = 2) -> list[dict]:
    first, second, mgmt = PORTS[platform]
    nics = [nic(name, CARDS[0], function=i) for i, name in enumerate(first)]
    if cards == 2:
        nics += [nic(name, CARDS[1], function=i) for i, name in enumerate(second)]
    nics.append(nic(mgmt, "0000:00:19", speed=ONE_G, driver="igb", addresses=["192.168.1.10/24", "fe80::1/64"],
                    carries_session=True))
    return nics


def seed001(platform: str = "linux", *, cards: int = 2) -> dict:
    """Seed 001: two hosts, each with two dual-port X540-T2s, bonded to each other for one fast
    client (iperf between them); jumbo frames. 11.3 Gb/s on one card, 20 with members on two."""
    return {
        "nics": inventory(platform, cards=cards),
        "platform": platform,
        "topology": "switchless-peer",
        "goal": "one-client-faster",
        "options": {"mtu": 9000, "address": "10.20.0.5/24"},
    }


def seed002(platform: str = "truenas-core") -> dict:
    """Seed 002: the NAS on two X540-T2s, 5 clients with one 10G port each behind an unmanaged
    switch, jumbo frames. Round-robin: reads 18.2 Gb/s, writes 11.8. One port still has an address
    from an earlier test, which the plan clears."""
    nics = inventory(platform)
    nics[2]["addresses"] = ["10.99.0.5/24"]
    return {
        "nics": nics,
        "platform": platform,
        "topology": "unmanaged-switch",
        "goal": "aggregate-many-clients",
        "client_count": 5,
        "client_link_bps": "10g",
        "options": {"mtu": 9000, "address": "10.20.0.5/24", "clear_member_config": True},
    }


def shuffled(request: dict, seed: int) -> dict:
    out = copy.deepcopy(request)
    random.Random(seed).shuffle(out["nics"])
    return out


def edit(request: dict, **options) -> dict:
    out = copy.deepcopy(request)
    out["options"] = {**out.get("options", {}), **options}
    return out
