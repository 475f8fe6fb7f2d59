"""Per-host configuration from a MeshPlan: TrueNAS API calls, Linux (netplan, systemd-networkd,
ifupdown), FreeBSD rc.conf, Windows PowerShell.

Text configs come from jinja2 templates shipped in the package (templates/), rendered with
StrictUndefined (a missing value is an error, never an empty string) and no autoescaping (these
are configs, not HTML). Every name that reaches a template was checked against a strict pattern
when the plan was made. TrueNAS payloads are data, not text, and are built in truenas_api.py.

Nothing here touches a system: applying files and calls is the caller's job.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel, ConfigDict, Field

from ..errors import ValidationError
from ..units import format_rate
from .. import hostsblock
from ..changes import RenderedFile
from .models import HostPlan, MeshPlan
from .truenas_api import ApiCall, truenas_calls

Flavour = Literal["truenas-api", "netplan", "networkd", "ifupdown", "freebsd-rc", "powershell"]

# What each kind of host can take, preferred first. TrueNAS owns its network config files and
# rewrites them, so a TrueNAS host only gets API calls.
FLAVOURS_BY_KIND: dict[str, tuple[Flavour, ...]] = {
    "truenas-scale": ("truenas-api",),
    "truenas-core": ("truenas-api",),
    "linux": ("netplan", "networkd", "ifupdown"),
    "freebsd": ("freebsd-rc",),
    "windows": ("powershell",),
}


class RenderedConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    host: str = Field(description="Host the config is for.")
    flavour: Flavour = Field(description="Which configuration system it targets.")
    files: list[RenderedFile] = Field(default_factory=list, description="Files to install, with path, mode and content.")
    api_calls: list[ApiCall] = Field(
        default_factory=list,
        description="TrueNAS calls in order; the applier wraps interface changes in interface.commit "
        "(rollback on) and interface.checkin.",
    )
    warnings: list[str] = Field(
        default_factory=list, description="Things in the host's current state that would undo the plan."
    )


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("tengig.mesh", "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _template(name: str):
    return _environment().get_template(name)


def _links(plan: MeshPlan, host: HostPlan) -> list[dict[str, Any]]:
    """One entry per mesh port, in the host's port order (by peer)."""
    links = []
    cables = {c.id: c for c in plan.cables_of(host.name)}
    for port in host.ports:
        if port.cable is None:
            continue
        cable = cables[port.cable]
        end, far = cable.end_of(host.name), cable.far_end_of(host.name)
        links.append({
            "cable": cable.id,
            "port": end.port,
            "address": end.address,
            "prefix": cable.prefix,
            "peer": far.host,
            "peer_port": far.port,
            "speed": format_rate(cable.speed_bps),
        })
    return links


def _context(plan: MeshPlan, host: HostPlan) -> dict[str, Any]:
    return {
        "host": host.name,
        "links": _links(plan, host),
        "mtu": plan.options.mtu,
        "entries": host.hosts_entries,
        "begin_mark": hostsblock.BEGIN_MARK,
        "begin_prefix": hostsblock.BEGIN_PREFIX,
        "end_mark": hostsblock.END_MARK,
    }


def _hosts_file(host: HostPlan) -> RenderedFile:
    return RenderedFile(
        path="/etc/hosts", content="\n".join(hostsblock.hosts_lines(host.hosts_entries)) + "\n", how="marked-block"
    )


def _render_files(flavour: Flavour, plan: MeshPlan, host: HostPlan) -> list[RenderedFile]:
    ctx = _context(plan, host)
    if flavour == "netplan":
        # netplan warns about (and newer releases refuse) files others can read.
        text = _template("netplan.yaml.j2").render(ctx)
        return [RenderedFile(path="/etc/netplan/60-tengig-mesh.yaml", content=text, how="replace", mode="0600"),
                _hosts_file(host)]
    if flavour == "networkd":
        template = _template("networkd.network.j2")
        files = [
            RenderedFile(
                path=f"/etc/systemd/network/60-tengig-{link['port']}.network",
                content=template.render(ctx, link=link),
                how="replace",
            )
            for link in ctx["links"]
        ]
        return files + [_hosts_file(host)]
    if flavour == "ifupdown":
        text = _template("ifupdown.j2").render(ctx)
        return [RenderedFile(path="/etc/network/interfaces.d/tengig-mesh", content=text, how="replace"),
                _hosts_file(host)]
    if flavour == "freebsd-rc":
        text = _template("freebsd-rc.conf.j2").render(ctx)
        return [RenderedFile(path="/etc/rc.conf", content=text, how="marked-block"), _hosts_file(host)]
    if flavour == "powershell":
        text = _template("windows.ps1.j2").render(ctx)
        return [RenderedFile(path=f"tengig-mesh-{host.name}.ps1", content=text, how="run")]
    raise AssertionError(f"no file renderer for {flavour}")  # truenas-api is handled by the caller


def render_host(
    plan: MeshPlan, host: str, flavour: Flavour | None = None, *, existing_hosts: str | list[str] | None = None
) -> RenderedConfig:
    """Config for one host in one flavour (default: the kind's preferred one).

    `existing_hosts` is the host's current TrueNAS `network.configuration` hosts value (a list
    on SCALE 23.10+, a string on CORE and 22.12): our entries are merged into it, the user's kept.
    """
    try:
        host_plan = plan.host(host)
    except KeyError:
        raise ValidationError.one("host", f"no host {host!r} in this plan; it has {', '.join(h.name for h in plan.hosts)}") from None
    allowed = FLAVOURS_BY_KIND[host_plan.kind]
    flavour = flavour or allowed[0]
    if flavour not in allowed:
        raise ValidationError.one(
            "flavour", f"{host} is {host_plan.kind}: it takes {', '.join(allowed)}, not {flavour!r}"
        )
    if flavour == "truenas-api":
        calls = truenas_calls(plan, host_plan, existing_hosts=existing_hosts)
        return RenderedConfig(
            host=host, flavour=flavour, api_calls=calls, warnings=_shadowing(host_plan, existing_hosts or [])
        )
    return RenderedConfig(host=host, flavour=flavour, files=_render_files(flavour, plan, host_plan))


def _shadowing(host: HostPlan, existing: str | list[str]) -> list[str]:
    """The user's hosts lines for our names come first in /etc/hosts, and the first match wins."""
    names = [entry.name for entry in host.hosts_entries]
    return [
        f"{host.name}: the existing hosts entry {line.strip()!r} comes before tengig's and would win; "
        "remove it so the name resolves to the direct cable"
        for line in hostsblock.user_lines_naming(existing, names)
    ]


def render_all(plan: MeshPlan) -> dict[str, list[RenderedConfig]]:
    """Every flavour each host can take, by host name (hosts in plan order)."""
    return {
        host.name: [render_host(plan, host.name, flavour) for flavour in FLAVOURS_BY_KIND[host.kind]]
        for host in plan.hosts
    }
