"""The NAS's port a joined client reaches: found from the address the client connected to, with what
the NAS's kernel says about it now (MTU, negotiated speed, a shaper's rate) and its byte counters.
Everything here runs on the NAS itself."""
from __future__ import annotations

import ipaddress
import json

from pydantic import BaseModel, Field

from ...backends.linux.ip import parse_ip_addr_json, parse_route_get
from ...backends.linux.link_stats import parse_carrier_changes, parse_ip_link_stats
from ...backends.linux.nics import parse_ethtool
from ...errors import ToolOutputError
from ...verdict.ceilings import ethernet_rate_of_tbf
from ..context import BenchContext
from .smb_probes import LinkCounters

T = 10


class NasPort(BaseModel):
    ifname: str = Field(description="The NAS's interface that holds the address the client reached.")
    address: str = Field(description="That address (the iperf3 server and SMB are bound to it).")
    mtu: int = Field(description="Its MTU now, bytes.")
    speed_bps: int | None = Field(description="Negotiated speed (ethtool), bits/s; None where it has none.")
    shaper_bps: int | None = Field(description="A traffic shaper's rate on it (tc tbf, counting frames without "
                                   "preamble, FCS and gap), bits/s; None without.")
    duplex: str | None = Field(None, description="Negotiated duplex (ethtool): full, half; None: unknown.")
    carrier_downs: int | None = Field(None, description="Times it had lost its link since boot when the run found "
                                      "it (half the kernel's carrier changes, rounded up); None: unknown.")
    lagg_protocol: str | None = Field(None, description="The port is a LAGG (a Linux bond): its protocol in "
                                      "TrueNAS's words (LACP, LOADBALANCE, FAILOVER, ROUNDROBIN); None: not a LAGG.")
    lagg_members: int | None = Field(None, description="The LAGG's member ports; None: not a LAGG.")
    other_nics: list[str] = Field(default_factory=list, description="The NAS's other interfaces that are up with an "
                                  "IPv4 address (not loopback, not a LAGG member): each could carry an SMB channel.")

    @property
    def line_rate_bps(self) -> int | None:
        """What the port can carry, as an Ethernet line rate: the lower of its negotiated speed and the
        rate a shaper on it stands for (docs/physics.md: tbf counts MTU + 14 bytes, the wire MTU + 38)."""
        shaped = int(ethernet_rate_of_tbf(self.shaper_bps, self.mtu)) if self.shaper_bps else None
        rates = [r for r in (self.speed_bps, shaped) if r]
        return min(rates) if rates else None


def parse_tbf_rate(text: str) -> int | None:
    """`tc -j qdisc show dev IF` -> the root tbf's rate in bits/s (tc -j prints bytes/s), or None."""
    try:
        qdiscs = json.loads(text or "[]")
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"`tc -j qdisc show` printed no JSON: {text.strip()[:200]!r}") from exc
    tbf = next((q for q in qdiscs if isinstance(q, dict) and q.get("kind") == "tbf"), None)
    return int(tbf["options"]["rate"]) * 8 if tbf else None


def _loopback(address: str | None) -> bool:
    try:
        return bool(address) and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def proxied(local: str | None, peer: str | None) -> bool:
    """Whether the NAS's end of a client's connection says nothing of the link: unknown, or loopback while
    the client is elsewhere (it reached a proxy, as TrueNAS's nginx in front of middlewared, which then
    connected locally)."""
    return bool(peer) and not _loopback(peer) and (not local or _loopback(local))


def address_towards(ctx: BenchContext, nas: str, peer: str) -> str:
    """The NAS's own address towards ``peer`` (the source its kernel picks, `ip -j route get`): the link
    a client behind a proxy reached."""
    done = ctx.run(nas, ["ip", "-j", "route", "get", str(ipaddress.ip_address(peer))], timeout=T, check=False,
                   tool="ip")
    route = parse_route_get(done.stdout) if done.returncode == 0 else None
    if not route or "prefsrc" not in route or route["dev"] == "lo":
        raise ToolOutputError(f"{nas} has no route of its own towards the client's address {peer} "
                              f"({(done.stderr or done.stdout).strip() or 'no source address'}): the client must "
                              "reach the NAS over the link to measure")
    return route["prefsrc"]


# Linux bonding modes (ip -d: linkinfo.info_data.mode) in TrueNAS's LAGG words
BOND_PROTOCOLS = {"802.3ad": "LACP", "balance-xor": "LOADBALANCE", "active-backup": "FAILOVER",
                  "balance-rr": "ROUNDROBIN", "balance-tlb": "LOADBALANCE", "balance-alb": "LOADBALANCE",
                  "broadcast": "BROADCAST"}


def bond_protocol(text: str, ifname: str) -> str | None:
    """`ip -j -d addr show` -> the bonding mode of ``ifname`` in TrueNAS's words, or None (not a bond)."""
    try:
        links = json.loads(text or "[]")
    except json.JSONDecodeError:
        return None
    for link in links if isinstance(links, list) else []:
        info = (link.get("linkinfo") or {}) if isinstance(link, dict) else {}
        if link.get("ifname") == ifname and info.get("info_kind") == "bond":
            mode = str((info.get("info_data") or {}).get("mode", "?"))
            return BOND_PROTOCOLS.get(mode, mode.upper())
    return None


def find_port(ctx: BenchContext, nas: str, address: str) -> NasPort:
    addr_json = ctx.run(nas, ["ip", "-j", "-d", "addr", "show"], timeout=T, tool="ip").stdout
    interfaces = parse_ip_addr_json(addr_json)
    iface = next((i for i in interfaces if any(a.split("/")[0] == address for a in i.ipv4)), None)
    if iface is None:
        raise ToolOutputError(f"no interface of {nas} holds {address}, the address the client reached")
    eth = ctx.run(nas, ["ethtool", iface.name], timeout=T, check=False, tool="ethtool")
    ethtool = parse_ethtool(eth.stdout) if eth.returncode == 0 else {}
    tc = ctx.run(nas, ["tc", "-j", "qdisc", "show", "dev", iface.name], timeout=T, check=False, tool="tc")
    shaper = parse_tbf_rate(tc.stdout) if tc.returncode == 0 else None
    protocol = bond_protocol(addr_json, iface.name)
    others = [i.name for i in interfaces if i.name != iface.name and i.ipv4 and i.admin_up and not i.loopback
              and i.master is None and i.operstate in ("UP", "UNKNOWN")]
    port = NasPort(ifname=iface.name, address=address, mtu=iface.mtu, speed_bps=ethtool.get("speed_bps"),
                   shaper_bps=shaper, duplex=ethtool.get("duplex"), lagg_protocol=protocol,
                   lagg_members=sum(1 for i in interfaces if i.master == iface.name) if protocol else None,
                   other_nics=others)
    port.carrier_downs = carrier_downs(ctx, nas, port)
    return port


def carrier_downs(ctx: BenchContext, nas: str, port: NasPort) -> int | None:
    """Times the port has lost its link since boot: half its carrier changes, rounded up (a loss and its
    return are two); through netlink, so it reads the NAS's own interfaces wherever /sys is mounted."""
    done = ctx.run(nas, ["ip", "-s", "-s", "-j", "link", "show", "dev", port.ifname], timeout=T, check=False,
                   record=False)
    changes = parse_carrier_changes(done.stdout) if done.returncode == 0 else None
    return None if changes is None else (changes + 1) // 2


def counters(ctx: BenchContext, nas: str, port: NasPort) -> LinkCounters:
    done = ctx.run(nas, ["ip", "-s", "-j", "link", "show", "dev", port.ifname], timeout=T, record=False)
    counted = parse_ip_link_stats(done.stdout)
    if port.ifname not in counted:
        raise ToolOutputError(f"`ip -s -j link show dev {port.ifname}` printed no counters of {port.ifname}: "
                              f"{', '.join(sorted(counted))}")
    rx, tx = counted[port.ifname]
    return LinkCounters(rx_bytes=rx, tx_bytes=tx)
