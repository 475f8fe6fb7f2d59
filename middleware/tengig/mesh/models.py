"""What plan_mesh returns: cables, addresses, hosts entries, labels, counts, costs, a diagram.

Rates are bits per second; money is in the request's currency. A plan is plain data: the
renderers and (later) apply/verify read it, and the panel shows it as it is.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..hostsblock import HostsEntry
from .request import HostKind, MeshOptions


class _Output(BaseModel):
    model_config = ConfigDict(frozen=True)


class CableEnd(_Output):
    host: str = Field(description="Host this end plugs into.")
    port: str = Field(description="Port on that host.")
    card: str | None = Field(description="Card the port sits on, if known.")
    address: str = Field(description="The port's IPv4 address on this link, without prefix length.")


class MeshCable(_Output):
    id: str = Field(description="Cable id printed on its labels: C01, C02, ... in plan order.")
    a: CableEnd = Field(description="End on the host whose name sorts first.")
    b: CableEnd = Field(description="End on the other host.")
    speed_bps: int = Field(description="Line rate both ports run at, bits/s.")
    subnet: str = Field(description="The link's own subnet, e.g. 10.250.0.0/30.")
    prefix: int = Field(description="Prefix length of the subnet (also the TrueNAS alias netmask).")
    mtu: int = Field(description="MTU on both ends, bytes.")
    goodput_bps: float = Field(description="TCP payload ceiling of this link at this MTU (docs/physics.md §1), bits/s.")

    def end_of(self, host: str) -> CableEnd:
        return self.a if self.a.host == host else self.b

    def far_end_of(self, host: str) -> CableEnd:
        return self.b if self.a.host == host else self.a


class HostPort(_Output):
    port: str = Field(description="Port name on this host.")
    card: str | None = Field(description="Card it sits on, if known.")
    speed_bps: int = Field(description="Line rate, bits/s.")
    cable: str | None = Field(description="Cable plugged into it; None for a spare port.")
    peer: str | None = Field(description="Host at the far end; None for a spare port.")
    address: str | None = Field(description="address/prefix on this port; None for a spare port.")


class HostPlan(_Output):
    name: str = Field(description="Host name.")
    kind: HostKind = Field(description="Operating system, as requested.")
    ports: list[HostPort] = Field(description="Every port the host listed: mesh ports first (by peer), then spares.")
    hosts_entries: list[HostsEntry] = Field(description="Peer names this host resolves to their direct links.")


class Label(_Output):
    id: str = Field(description="Stable label id: P-<host>-<port> for ports, <cable>-A/-B for cable ends.")
    kind: Literal["port", "cable-end"] = Field(description="Stuck next to a port, or on one end of a cable.")
    host: str = Field(description="Host where the label is stuck (port) or where this cable end plugs in.")
    port: str = Field(description="Port on that host.")
    card: str | None = Field(description="Card of that port, if known.")
    cable: str = Field(description="Cable id.")
    peer_host: str = Field(description="Host at the other end of the cable.")
    peer_port: str = Field(description="Port at the other end of the cable.")
    text: str = Field(description="What to print: ASCII, one line, short enough for label tape.")


class MeshCounts(_Output):
    hosts: int = Field(description="n, the hosts in the mesh.")
    cables: int = Field(description="n(n-1)/2: one per host pair.")
    ports_used: int = Field(description="n(n-1): each host needs one port per peer.")
    ports_spare: int = Field(description="Ports listed but not needed.")
    dual_port_cards_to_buy: int = Field(
        description="Dual-port cards if every host were fitted from scratch: n x ceil((n-1)/2). Seed 000's "
        "'8 network interfaces for 4 machines' counts these cards, not ports (4 machines need 12 ports)."
    )


class CostEstimate(_Output):
    currency: str = Field(description="ISO 4217 code of every amount.")
    ports: int = Field(description="Ports the mesh uses, n(n-1).")
    port_price: float = Field(description="Price per port.")
    cables: int = Field(description="Cables, n(n-1)/2.")
    cable_price: float = Field(description="Price per DAC cable.")
    total: float = Field(description="ports x port_price + cables x cable_price, rounded to cents.")
    estimated_prices: list[str] = Field(description="Prices that are tengig's defaults, not the user's figures.")


class CostRow(_Output):
    hosts: int = Field(description="n, the host count this row prices.")
    mesh_ports: int = Field(description="n(n-1)")
    mesh_cables: int = Field(description="n(n-1)/2")
    mesh_cost: float = Field(description="mesh_ports x port price + mesh_cables x cable price.")
    switch_cost: float = Field(description="switch + n ports + n cables (one uplink per host).")
    switch_fits: bool = Field(description="n <= the switch's port count.")


class BreakEven(_Output):
    rows: list[CostRow] = Field(description="Mesh vs switch cost for 2 hosts up to a few past the break-even.")
    switch_cheaper_from: int | None = Field(
        description="Smallest host count at which the switched star costs less than the mesh; None if never "
        "(a mesh port and cable that cost nothing)."
    )
    summary: str = Field(description="One or two sentences: which is cheaper here, and from how many hosts a switch is.")


class DiagramNode(_Output):
    id: str = Field(description="Host name.")
    label: str = Field(description="Text to show.")
    kind: HostKind = Field(description="Operating system (for an icon).")
    x: float = Field(description="0..1, hosts on a circle in plan order (a stable layout for a panel).")
    y: float = Field(description="0..1, downwards.")


class DiagramEdge(_Output):
    id: str = Field(description="Cable id.")
    source: str = Field(description="Host at end A.")
    target: str = Field(description="Host at end B.")
    source_port: str = Field(description="Port at end A.")
    target_port: str = Field(description="Port at end B.")
    label: str = Field(description="Speed and subnet, e.g. '10 Gb/s 10.250.0.0/30'.")
    speed_bps: int = Field(description="Line rate, bits/s.")


class Diagram(_Output):
    nodes: list[DiagramNode] = Field(description="One per host.")
    edges: list[DiagramEdge] = Field(description="One per cable.")


class PlanNote(_Output):
    code: str = Field(description="Stable id, e.g. 'shared-card', 'windows-jumbo-value'.")
    severity: Literal["info", "warning"] = Field(description="warning: likely to cost throughput or a working link.")
    host: str | None = Field(description="Host the note is about, if one.")
    text: str = Field(description="What to know and what to do about it.")


class MeshPlan(_Output):
    options: MeshOptions = Field(description="The options the plan was made with (defaults filled in).")
    hosts: list[HostPlan] = Field(description="Hosts sorted by name.")
    cables: list[MeshCable] = Field(description="One per host pair, sorted by (a, b) host names.")
    labels: list[Label] = Field(description="Port labels, then cable-end labels.")
    labels_text: str = Field(description="The labels as a printable sheet.")
    labels_csv: str = Field(description="The labels as CSV (for label-printer software).")
    counts: MeshCounts = Field(description="Hosts, cables, ports used and spare.")
    cost: CostEstimate = Field(description="What the mesh costs at options.prices.")
    break_even: BreakEven = Field(description="Mesh against switch, by host count.")
    diagram: Diagram = Field(description="Nodes and edges for the panel.")
    notes: list[PlanNote] = Field(description="Things worth knowing before cabling (not errors).")

    def host(self, name: str) -> HostPlan:
        for host in self.hosts:
            if host.name == name:
                return host
        raise KeyError(name)

    def cables_of(self, name: str) -> list[MeshCable]:
        return [c for c in self.cables if name in (c.a.host, c.b.host)]
