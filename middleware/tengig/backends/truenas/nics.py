"""interface.query entries as tengig.nic.Nic: pure functions, tested on recorded-shape fixtures.

What TrueNAS reports (``state`` is the live kernel view, the top-level fields the saved config):
  - ``state.link_state``: ``LINK_STATE_<IFLA_OPERSTATE>`` on SCALE (UP, DOWN, LOWERLAYERDOWN, UNKNOWN...),
    LINK_STATE_UP/DOWN/UNKNOWN on CORE.
  - ``state.active_media_subtype``: SCALE writes ``"<speed>Mb/s <port>"`` from ethtool ("10000Mb/s Twisted
    Pair", "25000Mb/s Fibre", "Unknown Direct Attach Copper") and no duplex; CORE writes ifmedia words
    ("10Gbase-T <full-duplex>", "autoselect (10GBase-SR <full-duplex>)", "1000baseT <full-duplex>"),
    duplex also in ``state.media_options``.
  - No PCI address and no driver. The card is derived from systemd's predictable names (SCALE):
    ``en[P<domain>]p<bus>s<slot>[f<function>][d<port>]`` with decimal numbers, so enp3s0f1 is PCI
    0000:03:00.1 on card 0000:03:00 and enP2p65s0 is 0002:41:00.0. Names that carry no bus (eno1,
    ens1f0, eth0, CORE's ix0/igb1) give null: guessing would put two cards' ports on one "card".
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from ...nic import Nic, card_of_pci_slot

_SCALE_SPEED = re.compile(r"(?P<n>\d+)\s*Mb/s", re.IGNORECASE)
_IFMEDIA_SPEED = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<unit>[GM]?)base", re.IGNORECASE)
_AUTOSELECT = re.compile(r"^\s*autoselect\s*\((?P<inner>[^)]*)\)", re.IGNORECASE)
_PREDICTABLE = re.compile(
    r"^en(?:P(?P<domain>\d+))?p(?P<bus>\d+)s(?P<slot>\d+)(?:f(?P<function>\d+))?(?:d\d+)?$")
_KIND_OF_TYPE: dict[str, Literal["physical", "bond", "bridge", "vlan"]] = {
    "PHYSICAL": "physical", "LINK_AGGREGATION": "bond", "BRIDGE": "bridge", "VLAN": "vlan",
}


def parse_media_subtype(text: str | None, media_options: Iterable[str] | None = None
                        ) -> tuple[int | None, Literal["full", "half"] | None]:
    """(speed in bits/s, duplex) from active_media_subtype; (None, None) for '', 'Unknown ...', 'autoselect'."""
    text = (text or "").strip()
    if (m := _AUTOSELECT.match(text)) is not None:
        text = m.group("inner")
    speed = None
    if (m := _SCALE_SPEED.search(text)) is not None:
        speed = int(m.group("n")) * 10**6
    elif (m := _IFMEDIA_SPEED.search(text)) is not None:
        scale = 10**9 if m.group("unit").upper() == "G" else 10**6  # "1000baseT": no unit means Mb/s
        speed = int(float(m.group("n")) * scale)
    words = text.lower() + " " + " ".join(media_options or ()).lower()
    duplex: Literal["full", "half"] | None = None
    if "full-duplex" in words:
        duplex = "full"
    elif "half-duplex" in words:
        duplex = "half"
    return speed, duplex


def parse_link_state(text: str | None) -> Literal["up", "down", "unknown"]:
    state = (text or "").upper().removeprefix("LINK_STATE_")
    if state == "UP":
        return "up"
    if state in ("DOWN", "LOWERLAYERDOWN", "NOTPRESENT", "DORMANT"):
        return "down"
    return "unknown"


def pci_slot_from_name(name: str) -> str | None:
    """'enp3s0f1' -> '0000:03:00.1'; None when the name does not encode a PCI bus (see module doc)."""
    m = _PREDICTABLE.match(name)
    if m is None:
        return None
    domain, bus, slot = int(m.group("domain") or 0), int(m.group("bus")), int(m.group("slot"))
    function = int(m.group("function") or 0)
    if domain > 0xFFFF or bus > 0xFF or slot > 0x1F or function > 7:
        return None
    return f"{domain:04x}:{bus:02x}:{slot:02x}.{function}"


def session_interface_name(answer: Any) -> str | None:
    """interface.websocket_interface answers the whole interface entry (or null); older callers and
    stand-ins may answer a name. Either way: the name."""
    if isinstance(answer, dict):
        return answer.get("name") or answer.get("id")
    return answer if isinstance(answer, str) and answer else None


def nic_from_entry(entry: dict[str, Any], *, member_of: dict[str, str], session_interface: str | None) -> Nic:
    state = entry.get("state") or {}
    name = entry["name"]
    link = parse_link_state(state.get("link_state"))
    speed, duplex = parse_media_subtype(state.get("active_media_subtype"), state.get("media_options"))
    pci_slot = pci_slot_from_name(name) if entry.get("type") == "PHYSICAL" else None
    addresses = [
        f"{alias['address']}/{alias['netmask']}" for alias in state.get("aliases") or []
        if alias.get("type") in ("INET", "INET6") and alias.get("netmask") is not None
    ]
    return Nic(
        name=name,
        kind=_KIND_OF_TYPE.get(entry.get("type", ""), "virtual"),
        mac=(state.get("link_address") or "").lower() or None,
        link=link,
        speed_bps=speed if link == "up" else None,
        duplex=duplex if link == "up" else None,
        mtu=int(state.get("mtu") or entry.get("mtu") or 1500),
        driver=None,  # TrueNAS does not report it
        pci_slot=pci_slot,
        card=card_of_pci_slot(pci_slot),
        addresses=addresses,
        in_use_by=member_of.get(name),
        carries_session=name == session_interface,
        link_flaps=None,
    )


def members_of(entries: Iterable[dict[str, Any]]) -> dict[str, str]:
    """port name -> the LAGG or bridge it belongs to (saved config: lag_ports, bridge_members)."""
    owner: dict[str, str] = {}
    for entry in entries:
        for port in [*(entry.get("lag_ports") or []), *(entry.get("bridge_members") or [])]:
            owner[port] = entry["name"]
    return owner


def nics_from_query(entries: list[dict[str, Any]], session_interface: Any = None) -> list[Nic]:
    """Every interface.query entry as a Nic, sorted by name. ``session_interface``: what
    interface.websocket_interface answered (entry, name or null)."""
    owner = members_of(entries)
    session = session_interface_name(session_interface)
    return sorted((nic_from_entry(e, member_of=owner, session_interface=session) for e in entries),
                  key=lambda nic: nic.name)
