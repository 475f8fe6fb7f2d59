"""What the user asks the LAGG planner for: the NIC inventory, the platform, how the NAS is wired,
what the LAGG is for, and options.

Input models forbid unknown keys (a typo must not be silently ignored). Checks that need the
inventory and the platform together (members, names, MTU ranges) live in validate.py, so every
error can name the field it came from.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..nic import Nic
from ..units import LineRate

Platform = Literal["truenas-scale", "truenas-core", "linux", "freebsd"]
Topology = Literal["lacp-switch", "unmanaged-switch", "switchless-peer", "many-clients"]
Goal = Literal["aggregate-many-clients", "one-client-faster", "failover"]
# One vocabulary for protocols, TrueNAS's; the plan also gives each platform's own name for it.
LagProtocol = Literal["LACP", "FAILOVER", "LOADBALANCE", "ROUNDROBIN", "NONE"]


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, str_max_length=1024)


class LaggOptions(_Input):
    """How to build the LAGG. Everything has a default the planner explains in the plan."""

    name: str | None = Field(
        None,
        description="Interface name: bondN on TrueNAS SCALE and Linux, laggN on TrueNAS CORE and FreeBSD. "
        "None: the lowest free number.",
    )
    protocol: LagProtocol | None = Field(
        None,
        description="Force a protocol (TrueNAS names; the plan gives the platform's own). None: the planner "
        "chooses from topology and goal.",
    )
    members: list[str] | None = Field(
        None,
        description="Member ports, in order (the first is the primary for FAILOVER). None: the planner picks "
        "usable ports of the fastest speed, one per card first.",
    )
    member_count: int | None = Field(
        None, ge=2, le=16,
        description="How many members when the planner picks them. None: one per card (at least 2), which keeps "
        "each member on its own PCIe link.",
    )
    mtu: int = Field(1500, ge=68, le=9216, description="MTU of the LAGG, bytes; members take it from the LAGG.")
    address: str | None = Field(
        None,
        description="IPv4 address with prefix for the LAGG, e.g. '10.20.0.5/24'. None: no address (e.g. VLANs on top).",
    )
    card_limits_bps: dict[str, LineRate] = Field(
        default_factory=dict,
        description="Known ceiling of a card's PCIe link, by card (Nic.card), bits/s or '14g'. Seed 001: a "
        "dual-port X540 topped out near 14 Gb/s. Cards not listed are assumed to carry every port at line rate.",
    )
    confirm_session_interface: bool = Field(
        False,
        description="Allow a member that carries the caller's own connection (Nic.carries_session). Making it a "
        "member drops its address: the caller may be cut off until the LAGG comes up.",
    )
    clear_member_config: bool = Field(
        False,
        description="Members that still have their own addresses (or, on TrueNAS, a saved MTU) are reset by the "
        "plan. False: such members are refused, as TrueNAS does ('currently in use').",
    )


class LaggRequest(_Input):
    """Everything plan_lagg needs. NIC order does not matter: the plan works in natural name order."""

    nics: list[Nic] = Field(min_length=1, description="The NAS's ports as tengig.nic reports them.")
    platform: Platform = Field(description="What the NAS runs; decides protocol names, fields and limits.")
    topology: Topology = Field(
        description="lacp-switch: a managed switch with the member ports in an LACP group. unmanaged-switch: a "
        "switch with no link aggregation (seed 002). switchless-peer: direct cables to one peer that bonds its "
        "ends the same way. many-clients: many clients on a switch you cannot configure or do not know "
        "(planned without LACP and without round-robin)."
    )
    goal: Goal = Field(
        description="aggregate-many-clients: more total throughput for many clients. one-client-faster: one "
        "client beyond one link. failover: survive a cable, port or card."
    )
    client_count: int = Field(1, ge=1, le=10_000, description="Clients that use the LAGG at the same time.")
    client_link_bps: LineRate | None = Field(
        None, description="Each client's own link speed, bits/s or '10g'. None: the members' speed."
    )
    flows: int | None = Field(
        None, ge=1, le=1024,
        description="TCP flows for the many-flow estimate (SMB clients, iperf3 -P). None: client_count, or 4 "
        "when there is one client.",
    )
    options: LaggOptions = Field(default_factory=LaggOptions, description="Name, protocol, members, MTU, address.")

    def flow_count(self) -> int:
        if self.flows is not None:
            return self.flows
        return self.client_count if self.client_count > 1 else 4
