"""Each port's counters on Linux: `ip -s -j link show` (iproute2's JSON, stats64), the counterpart of
FreeBSD's netstat.py, read here only (tested on recorded output, tests/fixtures/ip/): the byte counters
(LinuxHost.port_bytes, a joined run's port before and after each test, the lab's LAGG system and VMs) and,
with `-s -s`, the carrier changes (how often a port lost its link)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ...errors import ToolOutputError
from ..host_os import COUNTER_TIMEOUT

if TYPE_CHECKING:
    from ..host_os import Context

IP_LINK_STATS_ARGV = ("ip", "-s", "-j", "link", "show")


def parse_ip_link_stats(text: str) -> dict[str, tuple[int, int]]:
    """`ip -s -j link` output -> {ifname: (rx bytes, tx bytes)} (stats64)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"`ip -s -j link` printed no JSON ({exc})") from exc
    out = {}
    for link in doc if isinstance(doc, list) else []:
        stats = link.get("stats64") or link.get("stats")
        if not isinstance(stats, dict) or "ifname" not in link:
            continue
        out[link["ifname"]] = (int(stats["rx"]["bytes"]), int(stats["tx"]["bytes"]))
    if not out:
        raise ToolOutputError("`ip -s -j link` output has no interface with byte counters (was -s given?)")
    return out


def parse_carrier_changes(text: str) -> int | None:
    """`ip -s -s -j link show dev IF` -> the kernel's count of carrier changes (each loss of the link and
    each return is one), or None where iproute2 or the kernel does not report it."""
    try:
        links = json.loads(text or "[]")
        value = links[0]["stats64"]["tx"].get("carrier_changes")
    except (json.JSONDecodeError, IndexError, KeyError, TypeError, AttributeError):
        return None
    return value if isinstance(value, int) else None


def ip_link_bytes(ctx: "Context", host: str, *, timeout: float = COUNTER_TIMEOUT) -> dict[str, tuple[int, int]]:
    """``host``'s port counters, read through the benchmark's context (LinuxHost.port_bytes; the lab's nas
    and VMs, Linux too)."""
    return parse_ip_link_stats(ctx.run(host, list(IP_LINK_STATS_ARGV), timeout=timeout, record=False).stdout)
