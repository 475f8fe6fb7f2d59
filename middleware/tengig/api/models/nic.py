"""tengig.nic: the NIC inventory (speed, duplex, MTU, driver, card/PCI slot, link flaps)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...nic.models import Nic
from .base import ApiInput, ApiOutput


class TenGigNicQueryOptions(ApiInput):
    system: Literal["lab", "local", "truenas"] = Field(
        "lab", description="'lab': a host of the embedded lab; 'local': this machine; 'truenas': the TrueNAS "
        "(inside its middlewared, the plugin: that TrueNAS itself; elsewhere the one TENGIG_TRUENAS_URL names, or "
        "this machine's middlewared when it is one), from its interface.query (what tengig.lagg.apply "
        "{system: truenas} changes).")
    host: str | None = Field(None, pattern=r"^[a-z][a-z0-9]{0,9}$",
                             description="With system 'lab': which lab host (default: the NAS).")
    include_virtual: bool = Field(True, description="Also list virtual ports (veth, ifb ...); loopback never.")


class TenGigNicQueryArgs(ApiInput):
    options: TenGigNicQueryOptions = Field(default_factory=TenGigNicQueryOptions, description="Which machine.")


class TenGigNicQueryResult(ApiOutput):
    result: list[Nic] = Field(description="Every port, in kernel order.")
