"""What the user asks the mesh planner for: hosts, their ports, networks to stay clear of, options.

Input models forbid unknown keys (a typo must not be silently ignored). Structural checks live
here; checks that need the whole request (unique names, pins, address room) live in validate.py so
that every error can name the exact input field it came from.
"""
from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel, ConfigDict, Field, SerializationInfo, SerializerFunctionWrapHandler, model_serializer,
)

from ..units import LineRate

HostKind = Literal["truenas-scale", "truenas-core", "linux", "freebsd", "windows"]
LinkPrefix = Literal[24, 30, 31]

DEFAULT_POOL = "10.250.0.0/16"
# /30 works on every OS we render for; /31 (RFC 3021) is not understood by Windows.
DEFAULT_PREFIX: LinkPrefix = 30


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, str_max_length=1024)


class MeshPort(_Input):
    """One physical port a host can give to the mesh."""

    name: str = Field(
        description="Interface name as the host's OS calls it: enp3s0f0 (Linux, SCALE), ix0 (FreeBSD, CORE), "
        "'Ethernet 3' (Windows adapter name)."
    )
    speed_bps: LineRate = Field(description="Line rate in bits/s (10000000000); '10g', '25g' are accepted too.")
    card: str | None = Field(
        None,
        description="The card this port sits on, e.g. 'X540 #1' or the PCI slot '0000:03:00'. Ports on one card "
        "share its PCIe link, so the planner spreads cables across cards. None: unknown.",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9 #()._:/+-]{0,39}$",
    )
    peer: str | None = Field(
        None,
        description="Reserve this port for the cable to this host (already wired or labelled). "
        "None: the planner chooses.",
    )


class MeshHost(_Input):
    """A machine in the mesh and the ports it offers."""

    name: str = Field(description="Host name the peers will resolve (lower-case RFC 1123 label, e.g. 'nas').")
    kind: HostKind = Field(description="Operating system, which decides the config flavours rendered for it.")
    ports: list[MeshPort] = Field(description="Ports free for the mesh; it needs one per peer (n - 1).")


class MeshPrices(_Input):
    """Prices for the cost estimate and the switch break-even. The defaults are estimates, not quotes."""

    currency: str = Field("USD", pattern=r"^[A-Z]{3}$", description="ISO 4217 code the prices are in.")
    nic_port: float = Field(
        15.0, ge=0, description="One SFP+ port (a dual-port card counts as two). Estimate: used ConnectX-2/Chelsio "
        "cards cost about 15 USD per port in field report 000 (docs/physics.md §8)."
    )
    dac_cable: float = Field(10.0, ge=0, description="One direct-attach copper cable. Estimate: ~10 USD (field report 000, docs/physics.md §8).")
    switch: float = Field(
        270.0, ge=0, description="A switch with switch_ports SFP+ ports. Estimate: an 8-port SFP+ switch, new."
    )
    switch_ports: int = Field(8, ge=2, le=256, description="SFP+ ports on that switch (hosts it can serve).")

    def defaulted(self) -> list[str]:
        """Prices the user did not set: the plan labels them as tengig's estimates."""
        return [name for name in ("nic_port", "dac_cable", "switch") if name not in self.model_fields_set]

    @model_serializer(mode="wrap")
    def _estimates_left_out(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> dict:
        """A Python dump is how a request is handed on inside tengig (an API host hands a service its params
        so, every default filled in): the prices the user did not set are left out of it, so the plan made
        from it again still labels them estimates. JSON (the wire, files, the panel) shows every figure."""
        data = handler(self)
        if not info.mode_is_json():
            for name in self.defaulted():
                data.pop(name, None)
        return data


class MeshOptions(_Input):
    """How to address and name the links."""

    address_pool: str = Field(
        DEFAULT_POOL,
        description="IPv4 network the link subnets are carved from (private space; each link gets its own subnet).",
    )
    prefix: LinkPrefix = Field(
        DEFAULT_PREFIX,
        description="Prefix length per link: 31 (2 addresses, RFC 3021), 30 (4, works everywhere) or 24 "
        "(readable: host number N is .N on every link, as in field report 000 (docs/physics.md §8) and the lab).",
    )
    name_suffix: str = Field(
        "",
        pattern=r"^(-?[a-z0-9]+)*$",
        max_length=20,
        description="Appended to peer names in hosts entries: '-10g' makes 'nas-10g'. Empty: the plain peer name "
        "resolves to the direct link (field report 000's (docs/physics.md §8) choice: \\\\nas then uses the fast cable by itself).",
    )
    mtu: int = Field(1500, ge=1500, le=9216, description="MTU of every mesh port, bytes (both ends must match).")
    prices: MeshPrices = Field(default_factory=MeshPrices, description="Prices for the cost estimate.")


class MeshRequest(_Input):
    """Everything plan_mesh needs. Host and port order does not matter: the plan is sorted by name."""

    hosts: list[MeshHost] = Field(min_length=2, max_length=256, description="Machines to connect, 2 or more.")
    existing_networks: list[str] = Field(
        default_factory=list,
        description="CIDRs already used on any of these hosts (LAN, VPN, containers): link subnets avoid them. "
        "An interface address such as 192.168.1.10/24 counts as its whole network.",
    )
    options: MeshOptions = Field(default_factory=MeshOptions, description="Addressing, naming, MTU and prices.")
