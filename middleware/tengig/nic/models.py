"""One network port as tengig sees it, whatever the platform."""
from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# PCI address "domain:bus:device.function"; the ports of one card share domain:bus:device.
_PCI_SLOT = re.compile(r"^(?P<card>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2})\.(?P<function>[0-7])$")


def card_of_pci_slot(pci_slot: str | None) -> str | None:
    """'0000:03:00.1' -> '0000:03:00' (both ports of a dual-port card); None when not a PCI address."""
    if pci_slot is None:
        return None
    m = _PCI_SLOT.fullmatch(pci_slot.lower())
    return m.group("card") if m else None


class LinkFlap(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    at: str = Field(description="When, as the kernel log gives it (ISO 8601 when known, else seconds since boot).")
    state: Literal["up", "down"] = Field(description="The link went up or down.")
    detail: str = Field(description="The kernel log line, e.g. 'ixgbe 0000:03:00.0 enp3s0f0: NIC Link is Up 10 Gbps'.")


class Nic(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    name: str = Field(description="Interface name, e.g. 'enp3s0f0', 'ix0', 'bond1'.")
    kind: Literal["physical", "virtual", "bond", "bridge", "vlan", "loopback"] = Field(
        description="physical: a real port (has a PCI device); virtual: veth/tun and the like.")
    mac: str | None = Field(description="Link-layer address, lower case, or null.")
    link: Literal["up", "down", "unknown"] = Field(description="Carrier: a cable plugged into something that answers.")
    speed_bps: int | None = Field(description="Negotiated speed, bits/s (10^9 = 1 Gb/s); null when the link is down or the driver does not say.")
    duplex: Literal["full", "half"] | None = Field(description="Negotiated duplex; null when unknown.")
    mtu: int = Field(description="MTU, bytes (IP packet size, without the 14-byte Ethernet header).")
    driver: str | None = Field(description="Kernel driver, e.g. 'ixgbe', 'mlx4_en', 'veth'.")
    pci_slot: str | None = Field(description="PCI address of the port, e.g. '0000:03:00.1'; null for virtual ports.")
    card: str | None = Field(description="Which card the port sits on: the PCI slot without its function ('0000:03:00'); ports of one dual-port card share it and its PCIe bandwidth.")
    addresses: list[str] = Field(description="IP addresses with prefix, e.g. ['10.250.12.1/24'].")
    in_use_by: str | None = Field(description="The bond/LAGG or bridge this port is a member of, or null.")
    carries_session: bool = Field(description="The caller's own connection arrives on this port: changing it may cut the caller off.")
    link_flaps: int | None = Field(description="How many times the link went down since boot (the kernel's carrier_down_count), or null when unknown.")
    flap_events: list[LinkFlap] = Field(default_factory=list, description="Link up/down lines from the kernel log, oldest first (at most the last 20).")
