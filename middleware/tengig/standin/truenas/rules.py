"""interface.create / interface.update validation as TrueNAS does it (a stand-in following docs/truenas-api.md §3,
not TrueNAS). Pure functions over plain dicts; messages and field paths are middlewared's own
(plugins/network.py ``_common_validation``, 24.10-25.10, and CORE 13.3 where it differs):

    interface_create.lag_ports.1   "enp9s0" is not a valid interface.           (CORE: Not a valid interface.)
    interface_create.lag_ports.0   Interface enp3s0f0 is currently in use by bond1.
    interface_create.lag_ports.0   Interface enp3s0f0 is currently in use        (SCALE: it has a saved config)
    interface_create.lag_protocol  TrueNAS SCALE does not support LAG protocol ROUNDROBIN
    interface_update.aliases.0     The network 10.0.0.0/30 is already in use by another interface.
    interface_create.ipv4_dhcp     Only one interface can be used for DHCP.
    interface_update.mtu           Interface in use by bond1. MTU cannot be changed.

Schema errors (unknown keys such as xmit_hash_policy on CORE, an MTU out of range) are, from 25.04,
middlewared's API layer's, under the argument's name (``data.mtu``; before, ``interface_update.mtu``); an alias that is no network (netmask 33) is its
CallError EINVAL with Python's words (tests/realmw/test_standin_against_truenas.py compares them).
"""
from __future__ import annotations

import errno
import ipaddress
import re
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ...api.exceptions import CallError, ValidationErrors
from ...api.params import validation_errors


class Alias(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["INET", "INET6"] = "INET"
    address: str
    netmask: int = Field(ge=0, le=128)


def _interface_model(*, core: bool, update: bool) -> type[BaseModel]:
    low = 1492 if core else 68
    fields: dict[str, Any] = {
        "name": (str | None, None),
        "description": (str | None, None),
        "ipv4_dhcp": (bool | None, None),
        "ipv6_auto": (bool | None, None),
        "aliases": (list[Alias] | None, None),
        "mtu": (int | None, Field(None, ge=low, le=9216)),
        "lag_protocol": (Literal["LACP", "FAILOVER", "LOADBALANCE", "ROUNDROBIN", "NONE"] | None, None),
        "lag_ports": (list[str] | None, None),
        "bridge_members": (list[str] | None, None),
        "failover_critical": (bool | None, None),
    }
    if not core:  # CORE's lagg(4) has neither (docs/truenas-api.md §3)
        fields["xmit_hash_policy"] = (Literal["LAYER2", "LAYER2+3", "LAYER3+4"] | None, None)
        fields["lacpdu_rate"] = (Literal["SLOW", "FAST"] | None, None)
    if not update:
        fields["type"] = (Literal["BRIDGE", "LINK_AGGREGATION", "VLAN"], ...)
    name = f"Interface{'Update' if update else 'Create'}{'Core' if core else 'Scale'}"
    return pydantic.create_model(name, __config__=ConfigDict(extra="forbid", strict=True), **fields)


_MODELS = {(core, update): _interface_model(core=core, update=update) for core in (False, True) for update in (False, True)}
VALIDATION_ATTRS = {  # what a LAGG member may not carry, with middlewared's wording
    "aliases": "Active node IP address cannot be changed.", "mtu": "MTU cannot be changed.",
    "ipv4_dhcp": "DHCP cannot be changed.", "ipv6_auto": "Autoconfig for IPv6 cannot be changed.",
}


def check_schema(data: Any, *, core: bool, update: bool, api_models: bool = True) -> dict[str, Any]:
    """The fields given (unknown keys, wrong types and MTU range refused), as plain values. ``api_models``:
    25.04+ checks them in its API layer (field paths under the argument, ``data.mtu``); before, its
    schemas named them after the method (``interface_update.mtu``)."""
    try:
        model = _MODELS[(core, update)].model_validate(data)
    except pydantic.ValidationError as exc:
        prefix = "data" if api_models else ("interface_update" if update else "interface_create")
        raise validation_errors(exc, prefix=prefix) from None
    return model.model_dump(exclude_unset=True)


def lag_owners(configs: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {port: name for name, cfg in configs.items() for port in cfg.get("lag_ports") or []}


def _networks(cfg: dict[str, Any]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(f"{a['address']}/{a['netmask']}", strict=False) for a in cfg.get("aliases") or []]


def validate(schema: str, new: dict[str, Any], itype: str, *, others: dict[str, dict[str, Any]],
             port_names: set[str], core: bool, lag_prefix: str, supported_protocols: tuple[str, ...],
             given: dict[str, Any]) -> ValidationErrors:
    """middlewared's _common_validation for a PHYSICAL or LINK_AGGREGATION interface.

    ``new``: the interface as it would be saved; ``given``: the fields the call sent; ``others``: every
    other saved config (by name); ``port_names``: every interface name that exists (ports and LAGGs)."""
    errors = ValidationErrors()
    name = new.get("name")
    if schema == "interface_create" and name in port_names | set(others):
        errors.add(f"{schema}.name", "Interface name is already in use.")
    if given.get("ipv4_dhcp") and any(cfg.get("ipv4_dhcp") for cfg in others.values()):
        errors.add(f"{schema}.ipv4_dhcp", "Only one interface can be used for DHCP.")
    used = [(n, net) for n, cfg in others.items() for net in _networks(cfg)]
    for index, alias in enumerate(new.get("aliases") or []):
        try:
            wanted = ipaddress.ip_network(f"{alias['address']}/{alias['netmask']}", strict=False)
        except ValueError as exc:
            raise CallError(str(exc), errno.EINVAL) from None
        if any(net.version == wanted.version and net.overlaps(wanted) for _, net in used):
            errors.add(f"{schema}.aliases.{index}", f"The network {wanted} is already in use by another interface.")
    owners = lag_owners(others)
    if itype == "PHYSICAL" and name in owners:
        for key, text in VALIDATION_ATTRS.items():
            if given.get(key):
                errors.add(f"{schema}.{key}", f"Interface in use by {owners[name]}. {text}")
    elif itype == "LINK_AGGREGATION":
        _validate_lagg(errors, schema, new, others=others, port_names=port_names, core=core,
                       lag_prefix=lag_prefix, supported_protocols=supported_protocols)
    return errors


def _validate_lagg(errors: ValidationErrors, schema: str, new: dict[str, Any], *, others: dict[str, dict[str, Any]],
                   port_names: set[str], core: bool, lag_prefix: str, supported_protocols: tuple[str, ...]) -> None:
    if new.get("name") and not re.fullmatch(rf"{lag_prefix}\d+", new["name"]):
        errors.add(f"{schema}.name", f'Link aggregation interface names must be "{lag_prefix}" followed by a number.'
                   if core else f'Link aggregation interface must start with "{lag_prefix}" followed by an unique '
                   'number.')  # SCALE: interface/interface_types.py
    protocol = new.get("lag_protocol")
    if protocol not in supported_protocols:
        errors.add(f"{schema}.lag_protocol",
                   f"{'FreeBSD' if core else 'TrueNAS SCALE'} does not support LAG protocol {protocol}")
    ports = new.get("lag_ports") or []
    if not ports:
        errors.add(f"{schema}.lag_ports", "This field cannot be empty.")
    owners = lag_owners(others)
    for index, member in enumerate(ports):
        path = f"{schema}.lag_ports.{index}"
        if member not in port_names or member.startswith(lag_prefix):
            errors.add(path, "Not a valid interface." if core else f'"{member}" is not a valid interface.')
        elif member in owners:
            errors.add(path, f"Interface {member} is currently in use by {owners[member]}.")
        elif not core and member in others:
            # SCALE: a port with its own saved config (an IP, an MTU...) must be cleared first.
            errors.add(path, f"Interface {member} is currently in use")
