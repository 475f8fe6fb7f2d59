"""The NIC inventory of a Linux host (tengig.nic.query): iproute2 for names, MTU, addresses and bond
membership; ethtool for the negotiated speed and duplex, the driver and the PCI slot; sysfs for the
kernel's carrier_down_count; the kernel log for when the link went up and down.

The parsers are pure; `linux_nics` runs the tools (in a network namespace for the lab's hosts). A
tool that fails for one port leaves that field unknown (null), never zero: a link that reports no
speed is not a 0 Mb/s link.
"""
from __future__ import annotations

import re

from ...nic.models import LinkFlap, Nic, card_of_pci_slot
from ...runner import Runner
from .ip import Iface, LinuxNetwork

TOOL_TIMEOUT = 10
MAX_FLAP_EVENTS = 20
_SPEED = re.compile(r"^\s*Speed:\s*(\d+)\s*Mb/s", re.M)
_DUPLEX = re.compile(r"^\s*Duplex:\s*(Full|Half)", re.M | re.I)
_LINK = re.compile(r"^\s*Link detected:\s*(yes|no)", re.M)
_KV = re.compile(r"^([a-z-]+):[ \t]*(.*)$", re.M)  # [ \t], not \s: an empty value must not take the next line
_PCI = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
# Drivers word link changes differently: "NIC Link is Up 10 Gbps", "Link is Down",
# "link becomes ready" (IPv6 addrconf), "link status definitely up" (bonding).
_UP = re.compile(r"link is up|link becomes ready|link status definitely up|link up", re.I)
_DOWN = re.compile(r"link is down|link status definitely down|link down", re.I)
_STAMP = re.compile(r"^(\S+)\s+(.*)$")


def parse_ethtool(text: str) -> dict:
    """`ethtool IF` -> speed_bps (None when 'Unknown!'), duplex, link."""
    speed = _SPEED.search(text)
    duplex = _DUPLEX.search(text)
    link = _LINK.search(text)
    return {
        "speed_bps": int(speed.group(1)) * 10**6 if speed else None,
        "duplex": duplex.group(1).lower() if duplex else None,
        "link": {"yes": "up", "no": "down"}[link.group(1)] if link else "unknown",
    }


def parse_ethtool_driver(text: str) -> dict:
    """`ethtool -i IF` -> driver and PCI slot (bus-info, when it is a PCI address)."""
    kv = {k: v.strip() for k, v in _KV.findall(text)}
    bus = kv.get("bus-info", "").lower()
    return {"driver": kv.get("driver") or None, "pci_slot": bus if _PCI.fullmatch(bus) else None}


def parse_link_events(kernel_log: str, ifname: str) -> list[LinkFlap]:
    """Lines of `dmesg --time-format iso` about `ifname` going up or down, oldest first."""
    word = re.compile(rf"(?<![\w.-]){re.escape(ifname)}(?![\w.-])")
    events = []
    for line in kernel_log.splitlines():
        if not word.search(line):
            continue
        state = "down" if _DOWN.search(line) else "up" if _UP.search(line) else None
        if state is None:
            continue
        m = _STAMP.match(line.strip())
        at, detail = (m.group(1), m.group(2)) if m else ("", line.strip())
        events.append(LinkFlap(at=at, state=state, detail=detail.strip()))
    return events[-MAX_FLAP_EVENTS:]


def _kind(iface: Iface, pci_slot: str | None) -> str:
    if iface.loopback:
        return "loopback"
    if iface.kind in ("bond", "bridge", "vlan"):
        return iface.kind
    return "physical" if pci_slot else "virtual"


def linux_nics(runner: Runner | None = None, *, netns: str | None = None, session_interface: str | None = None,
               include_loopback: bool = False) -> list[Nic]:
    runner = runner or Runner()
    interfaces = LinuxNetwork(runner, netns=netns).interfaces()
    log = runner.run(["dmesg", "--time-format", "iso"], timeout=TOOL_TIMEOUT, check=False)
    kernel_log = log.stdout if log.returncode == 0 else ""
    out = []
    for iface in interfaces:
        if iface.loopback and not include_loopback:
            continue
        eth = runner.run(["ethtool", iface.name], timeout=TOOL_TIMEOUT, netns=netns, check=False)
        drv = runner.run(["ethtool", "-i", iface.name], timeout=TOOL_TIMEOUT, netns=netns, check=False)
        down = runner.run(["cat", f"/sys/class/net/{iface.name}/carrier_down_count"], timeout=TOOL_TIMEOUT,
                          netns=netns, check=False)
        link = parse_ethtool(eth.stdout) if eth.returncode == 0 else {"speed_bps": None, "duplex": None, "link": "unknown"}
        driver = parse_ethtool_driver(drv.stdout) if drv.returncode == 0 else {"driver": iface.kind, "pci_slot": None}
        if link["link"] == "unknown":
            link["link"] = "up" if iface.operstate == "UP" else "down" if iface.operstate in ("DOWN", "LOWERLAYERDOWN") else "unknown"
        if link["link"] != "up":
            link["speed_bps"] = link["duplex"] = None  # a speed reported for a dead link is the last one, not now
        out.append(Nic(
            name=iface.name, kind=_kind(iface, driver["pci_slot"]), mac=iface.mac, link=link["link"],
            speed_bps=link["speed_bps"], duplex=link["duplex"], mtu=iface.mtu, driver=driver["driver"],
            pci_slot=driver["pci_slot"], card=card_of_pci_slot(driver["pci_slot"]), addresses=list(iface.ipv4),
            in_use_by=iface.master, carries_session=iface.name == session_interface,
            link_flaps=int(down.stdout.strip()) if down.returncode == 0 and down.stdout.strip().isdigit() else None,
            flap_events=parse_link_events(kernel_log, iface.name),
        ))
    return out
