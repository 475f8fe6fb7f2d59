"""FreeBSD `ifconfig [-v] [-m] [IF]` output -> one IfconfigEntry per interface, and the ifmedia words
of its `media:` line -> negotiated speed and duplex. Pure text -> model.

An interface starts at `NAME: flags=HEX<FLAGS> [metric N] mtu N`; its attributes follow on indented
lines, in an order that changed between releases (nd6 before or after media):

    ether 90:1b:0e:0f:5d:8a
    inet 10.253.0.10 netmask 0xfffffe00 broadcast 10.253.1.255
    media: Ethernet autoselect (10Gbase-Twinax <full-duplex,rxpause,txpause>)
    status: active                        (or: no carrier)
    laggproto lacp lagghash l2,l3,l4      (a lagg)
    laggport: ix0 flags=1c<ACTIVE,COLLECTING,DISTRIBUTING>
    member: tap0 flags=143<...>           (a bridge)

`media:` gives the configured media and, in parentheses, the active one: the speed is read from the
active subtype ("10Gbase-T", "1000baseT", "2500Base-T", "25GBase-SR"); "autoselect" alone, "none",
an unknown word, or no media line give no speed (None, never 0).
"""
from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Duplex = Literal["full", "half"]

_HEAD = re.compile(r"^(?P<name>[^\s:]+): flags=[0-9a-fA-F]+<(?P<flags>[^>]*)>(?: metric \d+)? mtu (?P<mtu>\d+)")
_ACTIVE = re.compile(r"\((?P<active>[^()]*)\)")
_SUBTYPE_SPEED = re.compile(r"^(?P<n>\d+(?:\.\d+)?)(?P<giga>G?)base", re.IGNORECASE)
_OPTIONS = re.compile(r"<(?P<options>[^>]*)>")
_INET = re.compile(r"^inet (?P<addr>\S+) netmask (?P<mask>0x[0-9a-fA-F]{8})")
_INET6 = re.compile(r"^inet6 (?P<addr>[^\s%]+)(?:%\S+)? prefixlen (?P<len>\d+)")
_LAGGPORT = re.compile(r"^laggport: (?P<port>\S+)")
_MEMBER = re.compile(r"^member: (?P<port>\S+)")


class IfconfigEntry(BaseModel):
    """One interface as ifconfig printed it; lines this model does not name are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    flags: list[str] = Field(description="Interface flags, e.g. ['UP', 'BROADCAST', 'RUNNING'].")
    mtu: int
    mac: str | None = Field(default=None, description="The `ether` line, lower case.")
    addresses: list[str] = Field(default_factory=list, description="inet and global inet6, with prefix length.")
    media: str | None = Field(default=None, description="The `media:` line, e.g. 'Ethernet autoselect (1000baseT <full-duplex>)'.")
    status: str | None = Field(default=None, description="The `status:` line: 'active', 'no carrier', ...")
    laggproto: str | None = Field(default=None, description="A lagg's protocol: lacp, failover, loadbalance...")
    laggports: list[str] = Field(default_factory=list, description="A lagg's member ports.")
    bridge_members: list[str] = Field(default_factory=list)
    groups: list[str] = Field(default_factory=list)
    vlan: bool = Field(default=False, description="It has a `vlan:` line.")


def _address(line: str) -> str | None:
    if (m := _INET.match(line)) is not None:
        prefix = bin(int(m.group("mask"), 16)).count("1")
        return f"{m.group('addr')}/{prefix}"
    if (m := _INET6.match(line)) is not None:
        try:
            if ipaddress.IPv6Address(m.group("addr")).is_link_local:
                return None
        except ValueError:
            return None
        return f"{m.group('addr')}/{m.group('len')}"
    return None


def _entry(name: str, flags: str, mtu: str, lines: list[str]) -> IfconfigEntry:
    fields: dict = {"name": name, "flags": [f for f in flags.split(",") if f], "mtu": int(mtu),
                    "addresses": [], "laggports": [], "bridge_members": []}
    for line in lines:
        key, _, rest = line.partition(" ")
        if key == "ether":
            fields["mac"] = rest.strip().lower()
        elif key in ("inet", "inet6") and (address := _address(line)) is not None:
            fields["addresses"].append(address)
        elif key == "media:":
            fields["media"] = rest.strip()
        elif key == "status:":
            fields["status"] = rest.strip()
        elif key == "laggproto":
            fields["laggproto"] = rest.split()[0] if rest.split() else None
        elif (m := _LAGGPORT.match(line)) is not None:
            fields["laggports"].append(m.group("port"))
        elif (m := _MEMBER.match(line)) is not None:
            fields["bridge_members"].append(m.group("port"))
        elif key == "groups:":
            fields["groups"] = rest.split()
        elif key == "vlan:":
            fields["vlan"] = True
    return IfconfigEntry.model_validate(fields)


def parse_ifconfig(text: str) -> list[IfconfigEntry]:
    """Every interface in `ifconfig` output, in the order printed."""
    entries = []
    head: re.Match | None = None
    body: list[str] = []
    for raw in text.splitlines():
        if (m := _HEAD.match(raw)) is not None:
            if head is not None:
                entries.append(_entry(head["name"], head["flags"], head["mtu"], body))
            head, body = m, []
        elif head is not None and raw[:1].isspace() and raw.strip():
            body.append(raw.strip())
    if head is not None:
        entries.append(_entry(head["name"], head["flags"], head["mtu"], body))
    return entries


def parse_media(media: str | None) -> tuple[int | None, Duplex | None]:
    """(speed bits/s, duplex) of the active media; (None, None) when it names no speed."""
    if not media:
        return None, None
    m = _ACTIVE.search(media)
    active = m.group("active") if m else media
    words = [w for w in _OPTIONS.sub(" ", active).split() if w != "Ethernet"]
    speed = None
    if words and (s := _SUBTYPE_SPEED.match(words[0])) is not None:
        speed = int(float(s.group("n")) * (10**9 if s.group("giga") else 10**6))
    options = (o.group("options") for o in _OPTIONS.finditer(active))
    opts = {w.strip() for group in options for w in group.split(",")}
    duplex: Duplex | None = "full" if "full-duplex" in opts else "half" if "half-duplex" in opts else None
    return speed, duplex


def link_of(status: str | None) -> Literal["up", "down", "unknown"]:
    """`status:` -> carrier. Ethernet prints active / no carrier; wireless associated / no carrier."""
    if status in ("active", "associated"):
        return "up"
    if status in ("no carrier", "inactive", "down"):
        return "down"
    return "unknown"
