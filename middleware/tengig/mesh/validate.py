"""Checks that need the whole request, each error naming the input field it came from.

Errors are collected and raised together (like TrueNAS's ValidationErrors), so a user fixing a
request sees every problem at once, e.g. `hosts.2.ports: desk needs 2 ports ... but lists 1`.
Field paths use the request's own order, not the sorted order the planner works in.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


from .. import names
from ..errors import ValidationError, parse_model
from ..units import format_rate
from .request import MeshHost, MeshRequest

# Interface names are written into config files and commands: each OS gets its own strict pattern.
_PORT_NAME_CHECK = {
    "truenas-scale": names.ifname,
    "linux": names.ifname,
    "truenas-core": names.freebsd_ifname,
    "freebsd": names.freebsd_ifname,
    "windows": names.windows_adapter,
}


def parse_request(request: MeshRequest | Mapping[str, Any]) -> MeshRequest:
    """A MeshRequest from a model or plain data; pydantic's errors become tengig's field-path errors."""
    return parse_model(MeshRequest, request, empty_path="request")


def check_request(request: MeshRequest) -> None:
    """Names, uniqueness, port counts and pins. Speeds and addresses are checked where they are planned."""
    errors: list[tuple[str, str]] = []
    seen_hosts: dict[str, int] = {}
    for i, host in enumerate(request.hosts):
        errors += _check_names(i, host, request.options.name_suffix)
        if host.name in seen_hosts:
            errors.append((f"hosts.{i}.name", f"{host.name!r} is already hosts.{seen_hosts[host.name]}; names must be unique"))
        seen_hosts.setdefault(host.name, i)
    if errors:
        raise ValidationError(errors)  # pins and counts below assume valid, unique names

    n = len(request.hosts)
    for i, host in enumerate(request.hosts):
        if len(host.ports) < n - 1:
            peers = ", ".join(sorted(h.name for h in request.hosts if h.name != host.name))
            errors.append((
                f"hosts.{i}.ports",
                f"{host.name} needs {n - 1} ports (one per peer: {peers}) but lists {len(host.ports)}; "
                f"add ports or leave hosts out",
            ))
        errors += _check_pins(i, host, request)
    if request.options.prefix == 24 and n > 254:
        # On /24 links host number N is .N: 254 is the last address below the broadcast.
        errors.append(("options.prefix", f"/24 links number hosts .1 to .254; {n} hosts need /30 or /31"))
    if request.options.prefix == 31:
        for i, host in enumerate(request.hosts):
            if host.kind == "windows":
                errors.append((
                    "options.prefix",
                    f"{host.name} runs Windows, which does not use /31 links (RFC 3021); use 30 or 24",
                ))
    if errors:
        raise ValidationError(errors)


def _check_names(i: int, host: MeshHost, suffix: str) -> list[tuple[str, str]]:
    errors = []
    try:
        names.dns_label(host.name, field=f"hosts.{i}.name")
        names.dns_label(host.name + suffix, field=f"hosts.{i}.name")
    except ValidationError as exc:
        errors += exc.errors
    check_port = _PORT_NAME_CHECK[host.kind]
    seen_ports: dict[str, int] = {}
    for k, port in enumerate(host.ports):
        try:
            check_port(port.name, field=f"hosts.{i}.ports.{k}.name")
        except ValidationError as exc:
            errors += exc.errors
        # Windows adapter names are case-insensitive; Linux and FreeBSD names are not.
        key = port.name.lower() if host.kind == "windows" else port.name
        if key in seen_ports:
            errors.append((f"hosts.{i}.ports.{k}.name", f"{host.name} already has port {port.name!r} (hosts.{i}.ports.{seen_ports[key]})"))
        seen_ports.setdefault(key, k)
    return errors


def _check_pins(i: int, host: MeshHost, request: MeshRequest) -> list[tuple[str, str]]:
    """A pinned port names a real peer, once per peer, and agrees in speed with the peer's own pin."""
    errors = []
    by_name = {h.name: h for h in request.hosts}
    position = {h.name: j for j, h in enumerate(request.hosts)}
    pinned: dict[str, int] = {}
    for k, port in enumerate(host.ports):
        if port.peer is None:
            continue
        field = f"hosts.{i}.ports.{k}.peer"
        if port.peer == host.name:
            errors.append((field, f"{port.name} cannot be cabled to its own host {host.name}"))
            continue
        if port.peer not in by_name:
            errors.append((field, f"no host named {port.peer!r}; the hosts are {', '.join(sorted(by_name))}"))
            continue
        if port.peer in pinned:
            other = host.ports[pinned[port.peer]].name
            errors.append((field, f"{host.name} already reserves {other} for {port.peer}; one cable per pair"))
            continue
        pinned[port.peer] = k
        far = next((p for p in by_name[port.peer].ports if p.peer == host.name), None)
        # Reported once, at the host listed first, so one mistake reads as one error.
        if far is not None and far.speed_bps != port.speed_bps and i < position[port.peer]:
            errors.append((
                field,
                f"{host.name}:{port.name} runs at {format_rate(port.speed_bps)} but {port.peer}:{far.name}, reserved "
                f"for the same cable, runs at {format_rate(far.speed_bps)}; a cable needs one speed at both ends",
            ))
    return errors
