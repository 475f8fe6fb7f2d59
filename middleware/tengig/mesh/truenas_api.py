"""TrueNAS API calls for a mesh host (docs/truenas-api.md §3), as data: method plus positional params.

- `interface.update(name, {...})` per mesh port: one INET alias on the link's subnet and the MTU.
  The aliases list replaces the port's aliases: a mesh port carries only its link. DHCP and IPv6
  autoconfiguration are switched off (nothing answers on a direct cable, and TrueNAS allows
  only one interface with either).
- `network.configuration.update({"hosts": ...})` replaces the whole hosts value, so ours are
  merged into the current one: a list on SCALE 23.10+ (our entries tagged), a multi-line string
  on CORE and SCALE 22.12 (our marked block).

Staging is the applier's job: interface changes only take effect through
`interface.commit({"rollback": true, ...})` and `interface.checkin()` from a session that still works.
"""
from __future__ import annotations

from .. import hostsblock
from ..changes import ApiCall
from .models import HostPlan, MeshPlan


def hosts_value(host: HostPlan, existing: str | list[str] | None) -> str | list[str]:
    """The new `hosts` value: the user's entries as they were, ours replaced.

    The form follows what the host gave us; with nothing given, SCALE gets a list, CORE a string.
    """
    if existing is None:
        existing = "" if host.kind == "truenas-core" else []
    if isinstance(existing, str):
        return hostsblock.merge_hosts_block(existing, host.hosts_entries)
    return hostsblock.merge_hosts_list(existing, host.hosts_entries)


def truenas_calls(plan: MeshPlan, host: HostPlan, *, existing_hosts: str | list[str] | None = None) -> list[ApiCall]:
    cables = {c.id: c for c in plan.cables_of(host.name)}
    calls = []
    for port in host.ports:
        if port.cable is None:
            continue
        cable = cables[port.cable]
        far = cable.far_end_of(host.name)
        calls.append(ApiCall(
            method="interface.update",
            params=[
                port.port,
                {
                    "description": f"tengig mesh {cable.id} to {far.host} {far.port}",
                    "ipv4_dhcp": False,
                    "ipv6_auto": False,
                    "aliases": [{"type": "INET", "address": cable.end_of(host.name).address, "netmask": cable.prefix}],
                    "mtu": plan.options.mtu,
                },
            ],
        ))
    calls.append(ApiCall(
        method="network.configuration.update", params=[{"hosts": hosts_value(host, existing_hosts)}]
    ))
    return calls
