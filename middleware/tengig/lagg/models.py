"""What plan_lagg returns: the LAGG to build, what to expect from it, and what may serve better.

Rates are bits per second of TCP payload (goodput, docs/physics.md §1). Directions are named from the
NAS's side as SMB users see them: "read" = the NAS sends, "write" = the NAS receives.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .request import Goal, LagProtocol, Platform, Topology

Direction = Literal["read", "write"]
HashPolicy = Literal["LAYER2", "LAYER2+3", "LAYER3+4"]


class _Output(BaseModel):
    model_config = ConfigDict(frozen=True)


class LaggMember(_Output):
    name: str = Field(description="Port name.")
    card: str | None = Field(description="Card the port sits on (Nic.card), if known.")
    speed_bps: int = Field(description="Negotiated line rate, bits/s.")
    goodput_bps: float = Field(description="TCP payload ceiling of this member at the LAGG's MTU, bits/s.")
    clear_config: list[str] = Field(
        description="Its own configuration the plan removes first (addresses; a saved MTU on TrueNAS). Empty: none."
    )
    carries_session: bool = Field(description="The caller's own connection arrives on it (confirmed by the caller).")


class SkippedNic(_Output):
    name: str = Field(description="Port the planner did not pick.")
    reason: str = Field(description="Why: in use, no link, own address, another speed, spare ...")


class ExpectedThroughput(_Output):
    direction: Direction = Field(description="read: the NAS sends; write: the NAS receives.")
    flows: int = Field(description="TCP flows in flight at once (1, or the request's flow count).")
    bps: float = Field(description="What to expect, TCP goodput bits/s.")
    low_bps: float = Field(
        description="What it may fall to for reasons the plan names (flows hashed onto one member, a shared card's "
        "PCIe link); equal to bps when nothing of the kind applies."
    )
    multiple: float = Field(description="bps as a multiple of one member's goodput (1.0 = one link), 1 decimal.")
    reason: str = Field(description="Why this number, in words.")


class Alternative(_Output):
    code: str = Field(description="Stable id: smb-multichannel, round-robin, lacp-switch, balance-alb, more-members.")
    title: str = Field(description="One line: what to do instead.")
    read_bps: float | None = Field(description="What it would give for reads, bits/s, when it can be estimated.")
    write_bps: float | None = Field(description="What it would give for writes, bits/s, when it can be estimated.")
    why: str = Field(description="Why it serves the goal better, and what it needs.")


class PlanNote(_Output):
    code: str = Field(description="Stable id, e.g. 'shared-card', 'jumbo-end-to-end', 'session-interface'.")
    severity: Literal["info", "warning"] = Field(description="warning: likely to cost throughput or the connection.")
    text: str = Field(description="What to know and what to do about it.")


class LaggPlan(_Output):
    platform: Platform = Field(description="As requested.")
    topology: Topology = Field(description="As requested.")
    goal: Goal = Field(description="As requested.")
    name: str = Field(description="Interface name: bondN (SCALE, Linux) or laggN (CORE, FreeBSD).")
    protocol: LagProtocol = Field(description="TrueNAS's name for the protocol.")
    protocol_native: str = Field(description="The platform's own name: 802.3ad, active-backup, lacp, roundrobin ...")
    protocol_reason: str = Field(description="Why this protocol for this topology and goal.")
    members: list[LaggMember] = Field(description="Members in order (FAILOVER: the first is the primary).")
    xmit_hash_policy: HashPolicy | None = Field(description="Per-flow hash for LACP and LOADBALANCE; None otherwise.")
    lacpdu_rate: Literal["SLOW", "FAST"] | None = Field(description="LACPDU rate for LACP; None otherwise.")
    mtu: int = Field(description="MTU of the LAGG and its members, bytes.")
    address: str | None = Field(description="address/prefix on the LAGG, or None.")
    flows: int = Field(description="The flow count the many-flow estimates use.")
    throughput: list[ExpectedThroughput] = Field(
        description="read 1 flow, read N flows, write 1 flow, write N flows, in that order."
    )
    alternatives: list[Alternative] = Field(description="Setups that serve the goal better here, best first.")
    skipped: list[SkippedNic] = Field(description="Ports not used, with the reason, in natural name order.")
    notes: list[PlanNote] = Field(description="Things worth knowing before applying (not errors).")

    def expected(self, direction: Direction, flows: int) -> ExpectedThroughput:
        """The estimate for a direction and flow count (1, or the plan's many-flow count)."""
        rows = [t for t in self.throughput if t.direction == direction]
        return rows[0] if flows <= 1 else rows[-1]
