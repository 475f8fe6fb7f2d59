"""This desktop's interface towards the NAS, as its own kernel sees it (Linux: iproute2 and sysfs).
Facts that cannot be read are left out (the NAS then says they are unknown), never guessed; so is an
interface name the NAS would refuse (names.DESKTOP_IFNAME_RE)."""
from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

from ..backends.linux.ip import parse_route_get
from ..names import DESKTOP_IFNAME_RE
from ..runner import Runner


def link_towards(runner: Runner, host: str) -> dict[str, Any]:
    try:
        address = socket.getaddrinfo(host, None, socket.AF_INET)[0][4][0]
    except (OSError, IndexError):
        return {}
    route = runner.run(["ip", "-j", "route", "get", address], timeout=10, check=False)
    found = parse_route_get(route.stdout) if route.returncode == 0 else None
    if found is None:
        return {}
    dev = found["dev"]
    facts: dict[str, Any] = {"interface": dev} if DESKTOP_IFNAME_RE.fullmatch(dev) else {}
    link = runner.run(["ip", "-j", "link", "show", "dev", dev], timeout=10, check=False)
    try:
        facts["mtu"] = int(json.loads(link.stdout)[0]["mtu"])
    except (ValueError, LookupError, TypeError):
        pass
    try:
        speed = int(Path(f"/sys/class/net/{dev}/speed").read_text().strip())
        if speed > 0:
            facts["speed_bps"] = speed * 1_000_000
    except (OSError, ValueError):
        pass
    return facts
