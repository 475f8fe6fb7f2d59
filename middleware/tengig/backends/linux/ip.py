"""The Linux network as iproute2 shows it, and the few changes tengig makes to it.

`parse_ip_addr_json` is pure (`ip -j -d addr show` text -> interfaces); `LinuxNetwork` runs `ip` through
the runner, on this machine or inside a network namespace (the lab's hosts). Changes are runtime only:
what survives a reboot is the rendered netplan/networkd/ifupdown file.
"""
from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ToolOutputError
from ...names import ifname as interface_name
from ...runner import Runner

IP_TIMEOUT = 10  # seconds: every ip call is quick


class Iface(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Interface name.")
    mtu: int = Field(description="MTU, bytes.")
    operstate: str = Field(description="UP, DOWN, LOWERLAYERDOWN, UNKNOWN ...")
    admin_up: bool = Field(description="`ip link set up` was done (the UP flag).")
    mac: str | None = Field(description="Link-layer address.")
    kind: str | None = Field(description="linkinfo kind: veth, bond, bridge, vlan ...; None for plain NICs.")
    master: str | None = Field(description="Bond or bridge this interface is enslaved to.")
    ipv4: tuple[str, ...] = Field(description="IPv4 addresses with prefix, e.g. '10.250.12.1/24'.")
    loopback: bool = Field(description="The loopback interface.")

    def networks(self) -> list[ipaddress.IPv4Network]:
        return [ipaddress.ip_interface(a).network for a in self.ipv4]


def parse_ip_addr_json(text: str) -> list[Iface]:
    """`ip -j -d addr show` output -> interfaces, in kernel order. Raises ToolOutputError on garbage."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ToolOutputError(f"`ip -j addr` printed no JSON: {text[:200]!r}") from exc
    if not isinstance(doc, list):
        raise ToolOutputError("`ip -j addr` printed JSON that is not a list of interfaces")
    out = []
    for link in doc:
        try:
            flags = link.get("flags", [])
            out.append(Iface(
                name=link["ifname"],
                mtu=int(link["mtu"]),
                operstate=link.get("operstate", "UNKNOWN"),
                admin_up="UP" in flags,
                mac=link.get("address") if link.get("link_type") == "ether" else None,
                kind=(link.get("linkinfo") or {}).get("info_kind"),
                master=link.get("master"),
                ipv4=tuple(f"{a['local']}/{a['prefixlen']}" for a in link.get("addr_info", []) if a.get("family") == "inet"),
                loopback="LOOPBACK" in flags,
            ))
        except (KeyError, TypeError, ValueError) as exc:
            raise ToolOutputError(f"`ip -j addr` entry without the expected keys: {exc}") from exc
    return out


class LinuxNetwork:
    """One Linux host's interfaces: read them, and change MTU, addresses and link state.

    Every argv is built from validated names (interface_name) and addresses parsed by ipaddress, so
    nothing from a request reaches a command line unchecked."""

    def __init__(self, runner: Runner | None = None, *, netns: str | None = None):
        self.runner = runner or Runner()
        self.netns = netns

    def _ip(self, *args: str, check: bool = True):
        return self.runner.run(["ip", *args], timeout=IP_TIMEOUT, netns=self.netns, check=check)

    def interfaces(self) -> list[Iface]:
        return parse_ip_addr_json(self._ip("-j", "-d", "addr", "show").stdout)

    def interface(self, name: str) -> Iface | None:
        return next((i for i in self.interfaces() if i.name == name), None)

    def set_mtu(self, name: str, mtu: int) -> None:
        self._ip("link", "set", "dev", interface_name(name), "mtu", str(int(mtu)))

    def set_up(self, name: str, up: bool = True) -> None:
        self._ip("link", "set", "dev", interface_name(name), "up" if up else "down")

    def add_address(self, name: str, address: str) -> None:
        self._ip("addr", "add", str(ipaddress.IPv4Interface(address)), "dev", interface_name(name))

    def delete_address(self, name: str, address: str) -> None:
        self._ip("addr", "del", str(ipaddress.IPv4Interface(address)), "dev", interface_name(name))

    def route_source_interface(self, destination: str) -> str | None:
        """The interface traffic to `destination` leaves by (`ip route get`), or None when unroutable."""
        done = self._ip("-j", "route", "get", str(ipaddress.ip_address(destination)), check=False)
        route = parse_route_get(done.stdout) if done.returncode == 0 else None
        return route["dev"] if route else None


def parse_route_get(text: str) -> dict[str, str] | None:
    """`ip -j route get ADDR` -> {"dev": the interface it leaves by, "prefsrc": the source address this
    host uses towards ADDR (absent when the kernel gives none)}, or None (no route, or not that output)."""
    try:
        route = json.loads(text)[0]
        found = {"dev": str(route["dev"])}
    except (ValueError, LookupError, TypeError):
        return None
    if isinstance(route.get("prefsrc"), str):
        found["prefsrc"] = route["prefsrc"]
    return found


def overlapping(networks: Sequence[ipaddress.IPv4Network], subnet: ipaddress.IPv4Network) -> list[ipaddress.IPv4Network]:
    return [n for n in networks if n.overlaps(subnet)]
