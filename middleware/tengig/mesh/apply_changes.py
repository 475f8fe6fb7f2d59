"""What applying a mesh plan on one host changes, worked out before anything is touched (pure).

`check_host` refuses, with the request's field paths, what would make the apply unsafe: a port the
host does not have, a port that carries anything but its planned link (another address, a bond, the
default route), a link subnet that overlaps a network the host already uses (the plan was made
without it: list it in `existing_networks` and plan again). `changes_for` lists the steps that bring
the host to the plan; none when it is there already, which makes re-applying a no-op.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..backends.linux.ip import Iface
from ..errors import ValidationError
from ..hostsblock import merge_hosts_block
from .models import MeshPlan
from .request import MeshRequest


class PortTarget(BaseModel):
    model_config = ConfigDict(frozen=True)

    port: str = Field(description="Interface on this host.")
    address: str = Field(description="Planned address/prefix, e.g. 10.250.0.1/30.")
    mtu: int = Field(description="Planned MTU, bytes.")
    cable: str = Field(description="Cable id.")
    peer: str = Field(description="Host at the far end.")
    field: str = Field(description="Request field path naming this port, for errors.")


class Change(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["mtu", "address", "up", "hosts"] = Field(description="What is changed.")
    port: str | None = Field(description="Interface changed; None for the hosts file.")
    before: str = Field(description="Value before, as text.")
    after: str = Field(description="Value after, as text.")

    def describe(self) -> str:
        where = f"{self.port}: " if self.port else ""
        return f"{where}{self.kind} {self.before} -> {self.after}"


def port_targets(request: MeshRequest, plan: MeshPlan, host: str) -> list[PortTarget]:
    """The host's mesh ports with their planned address and MTU, and the request field naming each."""
    host_index = next(i for i, h in enumerate(request.hosts) if h.name == host)
    port_index = {p.name: j for j, p in enumerate(request.hosts[host_index].ports)}
    return [
        PortTarget(port=p.port, address=p.address, mtu=plan.options.mtu, cable=p.cable, peer=p.peer,
                   field=f"hosts.{host_index}.ports.{port_index[p.port]}.name")
        for p in plan.host(host).ports if p.cable is not None and p.address is not None
    ]


def check_host(plan: MeshPlan, host: str, targets: Sequence[PortTarget], interfaces: Sequence[Iface]) -> None:
    """Raise ValidationError (all problems at once) when applying would be unsafe or clash."""
    by_name = {i.name: i for i in interfaces}
    errors: list[tuple[str, str]] = []
    planned = {t.port: ipaddress.IPv4Interface(t.address) for t in targets}
    for t in targets:
        iface = by_name.get(t.port)
        if iface is None:
            errors.append((t.field, f"host {host} has no interface {t.port!r} (it has: {', '.join(sorted(by_name)) or 'none'})"))
            continue
        if iface.master:
            errors.append((t.field, f"{t.port} on {host} is a member of {iface.master}: free it or choose another port"))
        foreign = [a for a in iface.ipv4 if ipaddress.IPv4Interface(a) != planned[t.port]]
        if foreign:
            errors.append((t.field, f"{t.port} on {host} already has {', '.join(foreign)}: a mesh port carries only its "
                                    "link; remove that address (or an earlier mesh's) or choose another port"))
    for ci, cable in enumerate(plan.cables):
        if host not in (cable.a.host, cable.b.host):
            continue
        subnet = ipaddress.IPv4Network(cable.subnet)
        for iface in interfaces:
            if iface.loopback:
                continue
            for addr in iface.ipv4:
                net = ipaddress.IPv4Interface(addr).network
                mine = iface.name in planned and ipaddress.IPv4Interface(addr) == planned[iface.name]
                if not mine and net.overlaps(subnet):
                    errors.append(("existing_networks", f"cable {cable.id}'s subnet {subnet} overlaps {net} "
                                   f"({addr} on {iface.name} of {host}): add {net} to existing_networks and plan again"))
    if errors:
        raise ValidationError(errors)


def changes_for(targets: Sequence[PortTarget], interfaces: Sequence[Iface], hosts_text: str, new_hosts_text: str) -> list[Change]:
    """Steps from the host as it is to the plan, in a safe order: MTU, address, link up, then names."""
    by_name = {i.name: i for i in interfaces}
    changes: list[Change] = []
    for t in targets:
        iface = by_name[t.port]
        if iface.mtu != t.mtu:
            changes.append(Change(kind="mtu", port=t.port, before=str(iface.mtu), after=str(t.mtu)))
        if t.address not in iface.ipv4:
            changes.append(Change(kind="address", port=t.port, before="none", after=t.address))
        if not iface.admin_up:
            changes.append(Change(kind="up", port=t.port, before="down", after="up"))
    if new_hosts_text != hosts_text:
        changes.append(Change(kind="hosts", port=None, before=f"{len(hosts_text.splitlines())} lines",
                              after=f"{len(new_hosts_text.splitlines())} lines"))
    return changes


def new_hosts_text(plan: MeshPlan, host: str, hosts_text: str) -> str:
    return merge_hosts_block(hosts_text, plan.host(host).hosts_entries)
