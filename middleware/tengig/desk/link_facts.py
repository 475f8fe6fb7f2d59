"""This desktop's link towards the NAS, as its own system sees it, with no tool to install (no iproute2:
a Mac has none, and a Linux desktop need not):

- the local address: the source address of a UDP socket connected towards the NAS (nothing is sent);
- Linux: the interface of the route to the NAS in /proc/net/route, its MTU and negotiated speed from
  /sys/class/net;
- macOS (and FreeBSD): `ifconfig`: the interface that holds the local address, its MTU and its `media:`
  line's speed (1000baseT: 1 Gb/s; Wi-Fi's "autoselect" names none).

Facts that cannot be read are left out (the NAS then says they are unknown), never guessed; so is an
interface name the NAS would refuse (names.DESKTOP_IFNAME_RE)."""
from __future__ import annotations

import ipaddress
import platform
import socket
from pathlib import Path
from typing import Any

from ..backends.freebsd.ifconfig import parse_ifconfig, parse_media
from ..backends.linux.proc_route import parse_proc_route_interface
from ..errors import CommandNotFound, CommandTimeout
from ..names import DESKTOP_IFNAME_RE
from ..runner import Runner

T = 10
PROC_ROUTE = Path("/proc/net/route")
SYS_NET = Path("/sys/class/net")


def nas_ipv4(host: str) -> str | None:
    try:
        return str(socket.getaddrinfo(host, None, socket.AF_INET)[0][4][0])
    except (OSError, IndexError):
        return None


def local_address_towards(address: str) -> str | None:
    """The address this desktop's kernel picks to reach ``address`` (a connected UDP socket sends nothing)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((address, 9))
            return str(probe.getsockname()[0])
    except OSError:
        return None


def link_towards(runner: Runner, host: str, *, system: str | None = None) -> dict[str, Any]:
    address = nas_ipv4(host)
    if address is None:
        return {}
    system = system or platform.system()
    if system == "Linux":
        facts = _linux(address)
    elif system in ("Darwin", "FreeBSD"):
        local = local_address_towards(address)
        facts = _bsd(runner, local) if local else {}
    else:
        facts = {}
    if "interface" in facts and not DESKTOP_IFNAME_RE.fullmatch(facts["interface"]):
        del facts["interface"]
    return facts


def _linux(address: str) -> dict[str, Any]:
    try:
        # loopback is routed by the kernel's local table, which /proc/net/route (the main one) leaves out
        dev = "lo" if ipaddress.ip_address(address).is_loopback else parse_proc_route_interface(
            PROC_ROUTE.read_text(), address)
    except OSError:
        return {}
    if dev is None:
        return {}
    facts: dict[str, Any] = {"interface": dev}
    for name, key, scale in (("mtu", "mtu", 1), ("speed", "speed_bps", 1_000_000)):
        try:
            value = int((SYS_NET / dev / name).read_text().strip())
        except (OSError, ValueError):
            continue
        if value > 0:  # speed: -1 where the driver knows none (a veth, Wi-Fi)
            facts[key] = value * scale
    return facts


def _bsd(runner: Runner, local: str) -> dict[str, Any]:
    """The interface that holds ``local`` in `ifconfig`'s list, its MTU and media speed."""
    try:
        shown = runner.run(["ifconfig"], timeout=T, check=False)
    except (CommandNotFound, CommandTimeout):
        return {}
    if shown.returncode != 0:
        return {}
    entry = next((e for e in parse_ifconfig(shown.stdout) if any(a.split("/")[0] == local for a in e.addresses)), None)
    if entry is None:
        return {}
    facts: dict[str, Any] = {"interface": entry.name, "mtu": entry.mtu}
    speed, _ = parse_media(entry.media)
    if speed:
        facts["speed_bps"] = speed
    return facts
