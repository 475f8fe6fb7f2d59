"""A LaggPlan as what each platform takes: TrueNAS API calls, Linux iproute2 argv lists, FreeBSD
ifconfig argv lists and rc.conf lines. Each comes with what undoes it.

- TrueNAS (docs/truenas-api.md §3): `interface.create` with type LINK_AGGREGATION; `xmit_hash_policy` and
  `lacpdu_rate` exist on SCALE only. A member with its own saved config is reset first with
  `interface.delete(member)` (for a physical port that drops its saved config, the port stays).
  Nothing takes effect until `interface.commit({"rollback": true, "checkin_timeout": CHECKIN_TIMEOUT_S})`, and the
  change rolls back unless `interface.checkin()` follows from a session that still works.
- Linux: `ip link add NAME type bond mode M miimon 100 ...`; members are set down before they are
  enslaved (the kernel refuses an up port), then the LAGG's MTU, address, up. Deleting the bond
  releases the members and gives them back their own MTU.
- FreeBSD: `ifconfig laggN create laggproto P laggport ...`, and the same as rc.conf lines in a
  marked block (merge_rc_block replaces only tengig's block).

Every name here was checked against a strict pattern when the plan was made; argv lists only.
"""
from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any, Literal

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel, ConfigDict, Field

from ..changes import ApiCall, RenderedFile
from ..checkin import CHECKIN_TIMEOUT_S
from .models import LaggMember, LaggPlan
from .protocols import HASH_FREEBSD, HASH_LINUX

Flavour = Literal["truenas-api", "iproute2", "freebsd"]
FLAVOUR_BY_PLATFORM: dict[str, Flavour] = {
    "truenas-scale": "truenas-api", "truenas-core": "truenas-api", "linux": "iproute2", "freebsd": "freebsd",
}
MIIMON_MS = "100"  # link checked every 100 ms, as TrueNAS SCALE does


class RenderedLagg(BaseModel):
    model_config = ConfigDict(frozen=True)

    platform: str = Field(description="Platform of the plan.")
    flavour: Flavour = Field(description="truenas-api, iproute2 or freebsd.")
    api_calls: list[ApiCall] = Field(default_factory=list, description="TrueNAS calls in order (staged, not live).")
    commit: ApiCall | None = Field(None, description="TrueNAS: makes the staged change live, rolling back by itself.")
    checkin: ApiCall | None = Field(None, description="TrueNAS: keeps the change; call it from a session that still works.")
    undo_calls: list[ApiCall] = Field(default_factory=list, description="TrueNAS calls that take the LAGG away again.")
    commands: list[list[str]] = Field(default_factory=list, description="argv lists to run in order (never a shell).")
    undo: list[list[str]] = Field(
        default_factory=list, description="argv lists that take the LAGG away again, in order; safe to run after a "
        "partial apply (a step that fails because its part was never done can be ignored)."
    )
    files: list[RenderedFile] = Field(default_factory=list, description="Config lines that keep it across reboots.")


def render(plan: LaggPlan) -> RenderedLagg:
    flavour = FLAVOUR_BY_PLATFORM[plan.platform]
    if flavour == "truenas-api":
        return _truenas(plan)
    if flavour == "iproute2":
        return _linux(plan)
    return _freebsd(plan)


def _alias(address: str) -> dict[str, Any]:
    iface = ipaddress.ip_interface(address)
    return {"type": "INET" if iface.version == 4 else "INET6", "address": str(iface.ip), "netmask": iface.network.prefixlen}


def _addresses(member: LaggMember) -> list[str]:
    return [c.removeprefix("address ") for c in member.clear_config if c.startswith("address ")]


def describe(plan: LaggPlan) -> str:
    return f"tengig lagg: {plan.protocol_native} over {', '.join(m.name for m in plan.members)}"


def _truenas(plan: LaggPlan) -> RenderedLagg:
    body: dict[str, Any] = {
        "type": "LINK_AGGREGATION",
        "name": plan.name,
        "description": describe(plan),
        "lag_protocol": plan.protocol,
        "lag_ports": [m.name for m in plan.members],
    }
    if plan.platform == "truenas-scale":
        body["xmit_hash_policy"] = plan.xmit_hash_policy
        body["lacpdu_rate"] = plan.lacpdu_rate
    body.update({
        "mtu": plan.mtu,
        "aliases": [_alias(plan.address)] if plan.address else [],
        "ipv4_dhcp": False,
        "ipv6_auto": False,
    })
    resets = [ApiCall(method="interface.delete", params=[m.name]) for m in plan.members if m.clear_config]
    restore = [
        ApiCall(method="interface.update", params=[m.name, {"aliases": [_alias(a) for a in _addresses(m)]}])
        for m in plan.members if _addresses(m)
    ]
    return RenderedLagg(
        platform=plan.platform, flavour="truenas-api",
        api_calls=[*resets, ApiCall(method="interface.create", params=[body])],
        commit=ApiCall(method="interface.commit", params=[{"rollback": True, "checkin_timeout": CHECKIN_TIMEOUT_S}]),
        checkin=ApiCall(method="interface.checkin", params=[]),
        undo_calls=[ApiCall(method="interface.delete", params=[plan.name]), *restore],
    )


def _linux(plan: LaggPlan) -> RenderedLagg:
    name = plan.name
    add = ["ip", "link", "add", name, "type", "bond", "mode", plan.protocol_native, "miimon", MIIMON_MS]
    if plan.xmit_hash_policy:
        add += ["xmit_hash_policy", HASH_LINUX[plan.xmit_hash_policy]]
    if plan.lacpdu_rate:
        add += ["lacp_rate", plan.lacpdu_rate.lower()]
    commands = [["ip", "addr", "flush", "dev", m.name] for m in plan.members if _addresses(m)]
    commands.append(add)
    for m in plan.members:
        commands += [["ip", "link", "set", "dev", m.name, "down"], ["ip", "link", "set", "dev", m.name, "master", name]]
    if plan.protocol == "FAILOVER":
        commands.append(["ip", "link", "set", "dev", name, "type", "bond", "primary", plan.members[0].name])
    commands.append(["ip", "link", "set", "dev", name, "mtu", str(plan.mtu)])
    if plan.address:
        commands.append(["ip", "addr", "add", plan.address, "dev", name])
    commands.append(["ip", "link", "set", "dev", name, "up"])
    undo = [["ip", "link", "del", "dev", name]]
    for m in plan.members:
        undo.append(["ip", "link", "set", "dev", m.name, "up"])
        undo += [["ip", "addr", "add", a, "dev", m.name] for a in _addresses(m)]
    return RenderedLagg(platform=plan.platform, flavour="iproute2", commands=commands, undo=undo)


def _inet(address: str) -> str:
    return "inet" if ipaddress.ip_interface(address).version == 4 else "inet6"


def freebsd_lagg_args(plan: LaggPlan) -> list[str]:
    """What follows `ifconfig laggN create` (and `ifconfig_laggN=` in rc.conf), without the address."""
    args = ["laggproto", plan.protocol_native]
    for m in plan.members:
        args += ["laggport", m.name]
    if plan.xmit_hash_policy:
        args += ["lagghash", HASH_FREEBSD[plan.xmit_hash_policy]]
    return args + ["mtu", str(plan.mtu)]


def _freebsd(plan: LaggPlan) -> RenderedLagg:
    name = plan.name
    commands = []
    for m in plan.members:
        commands += [["ifconfig", m.name, _inet(a), str(ipaddress.ip_interface(a).ip), "-alias"] for a in _addresses(m)]
        commands.append(["ifconfig", m.name, "up"])
    commands.append(["ifconfig", name, "create", *freebsd_lagg_args(plan)])
    if plan.address:
        commands.append(["ifconfig", name, "inet", plan.address])
    commands.append(["ifconfig", name, "up"])
    undo = [["ifconfig", name, "destroy"]]
    for m in plan.members:
        undo += [["ifconfig", m.name, _inet(a), a, "alias"] for a in _addresses(m)]
    ifconfig_args = freebsd_lagg_args(plan) + (["inet", plan.address] if plan.address else []) + ["up"]
    text = _template("freebsd-rc.conf.j2").render(
        begin_mark=begin_mark(name), end_mark=end_mark(name), name=name, members=[m.name for m in plan.members],
        protocol_native=plan.protocol_native, address=plan.address, mtu=plan.mtu, ifconfig_args=ifconfig_args,
    )
    return RenderedLagg(
        platform=plan.platform, flavour="freebsd", commands=commands, undo=undo,
        files=[RenderedFile(path="/etc/rc.conf", content=text, how="marked-block")],
    )


def begin_mark(name: str) -> str:
    return f"# BEGIN tengig lagg {name} (managed by tengig: edits inside are replaced)"


def end_mark(name: str) -> str:
    return f"# END tengig lagg {name}"


def merge_rc_block(existing_text: str, block_text: str, name: str) -> str:
    """rc.conf with tengig's block for `name` replaced by block_text (or removed when it is empty);
    the user's lines stay as they were, and merging twice equals merging once."""
    kept, inside = [], False
    begin, end = f"# BEGIN tengig lagg {name} ", end_mark(name)  # the blank: lagg1 is not lagg10
    for line in existing_text.splitlines(keepends=True):
        if (line.strip() + " ").startswith(begin):
            inside = True
            continue
        if inside:
            inside = line.strip() != end
            continue
        kept.append(line)
    text = "".join(kept)
    if text and not text.endswith("\n"):
        text += "\n"
    return text + block_text


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(loader=PackageLoader("tengig.lagg", "templates"), undefined=StrictUndefined, autoescape=False,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def _template(name: str):
    return _environment().get_template(name)
