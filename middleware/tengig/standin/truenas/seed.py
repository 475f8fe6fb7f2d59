"""What a stand-in TrueNAS starts with (a stand-in following docs/truenas-api.md §3/§4, not TrueNAS): the
version it plays, its ports and saved interface config, hosts, pools, and which interface the API
session arrives on. Plain data; the stand-in's state is built from it.
"""
from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

VERSION_TEXT = {
    # system.version as each release writes it (backends/truenas/version.py says where that comes from)
    "24.10": "TrueNAS-SCALE-24.10.2.4",
    "25.04": "TrueNAS-25.04.2.6",
    "25.10": "TrueNAS-25.10.1",
    "13.3": "TrueNAS-13.3-U1.2",
}
StandinRelease = Literal["24.10", "25.04", "25.10", "13.3"]


class SeedInterface(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="enp3s0f0 (SCALE), ix0 (CORE), bond1 / lagg1 for a LAGG.")
    type: Literal["PHYSICAL", "LINK_AGGREGATION"] = Field("PHYSICAL", description="Port or LAGG.")
    link_up: bool = Field(True, description="Carrier on a physical port.")
    media_subtype: str = Field("10000Mb/s Twisted Pair", description="state.active_media_subtype as the "
                               "platform writes it (SCALE: '10000Mb/s Twisted Pair'; CORE: '10Gbase-T <full-duplex>').")
    mac: str = Field("00:00:00:00:00:00", description="state.link_address.")
    configured: bool | None = Field(None, description="Has a saved config row (true when it has aliases, an MTU, "
                                    "DHCP or a description; set it to force either way).")
    description: str = Field("", description="Saved description.")
    aliases: list[str] = Field(default_factory=list, description="Saved and active addresses, '192.168.1.10/24'.")
    mtu: int | None = Field(None, description="Saved MTU (null: the default 1500).")
    ipv4_dhcp: bool = Field(False, description="Saved ipv4_dhcp.")
    lag_protocol: str | None = Field(None, description="For a LAGG: LACP, FAILOVER, LOADBALANCE...")
    lag_ports: list[str] = Field(default_factory=list, description="For a LAGG: its member ports.")

    @field_validator("aliases")
    @classmethod
    def _cidrs(cls, value: list[str]) -> list[str]:
        for item in value:
            ipaddress.ip_interface(item)
        return value


class SeedPool(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Pool name, e.g. 'tank'.")
    size_bytes: int = Field(4 * 2**40, description="Total bytes datasets may use.")


class StandinSeed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    release: StandinRelease = Field("25.04", description="Which TrueNAS to play: protocol, names, fields follow it.")
    interfaces: list[SeedInterface] = Field(default_factory=list, description="Ports and LAGGs.")
    hosts: list[str] | str | None = Field(None, description="network.configuration hosts (null: empty, in the "
                                          "release's form).")
    pools: list[SeedPool] = Field(default_factory=lambda: [SeedPool(name="tank")], description="Pools.")
    session_interface: str | None = Field(None, description="The interface API sessions arrive on "
                                          "(interface.websocket_interface); its first saved address is the local IP.")

    @property
    def version_text(self) -> str:
        return VERSION_TEXT[self.release]


def example_seed(release: StandinRelease = "25.04") -> StandinSeed:
    """A NAS with a management port (the session's) and a dual-port 10G card, free for a mesh or LAGG."""
    core = release == "13.3"
    names = ("igb0", "ix0", "ix1") if core else ("enp1s0", "enp3s0f0", "enp3s0f1")
    media = "10Gbase-T <full-duplex>" if core else "10000Mb/s Twisted Pair"
    return StandinSeed(
        release=release,
        interfaces=[
            SeedInterface(name=names[0], media_subtype="1000baseT <full-duplex>" if core else "1000Mb/s Twisted Pair",
                          mac="3c:ec:ef:00:00:01", aliases=["192.168.1.10/24"]),
            SeedInterface(name=names[1], media_subtype=media, mac="a0:36:9f:00:00:10"),
            SeedInterface(name=names[2], media_subtype=media, mac="a0:36:9f:00:00:11"),
        ],
        hosts="192.168.1.20\tprinter\n" if core else ["192.168.1.20 printer"],
        session_interface=names[0],
    )
