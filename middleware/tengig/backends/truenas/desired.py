"""Pure helpers for a staged change: does a call's desired state already hold, which interfaces does it
touch, and what hosts value keeps the user's lines while carrying ours.

TrueNAS's network.configuration hosts value is replaced whole by an update, so the value a plan computed
earlier may have missed a line the user added since: ``rebase_hosts`` takes only our lines from it (tagged
``# tengig-mesh`` in a list, or inside our marked block in a string) and merges them into what the
TrueNAS holds now, in the form it holds.
"""
from __future__ import annotations

import ipaddress
from typing import Any

from ... import hostsblock

INTERFACE_METHODS = ("interface.create", "interface.update", "interface.delete")
HOSTS_METHOD = "network.configuration.update"


def touched_interfaces(method: str, params: list[Any]) -> set[str]:
    """Names an interface call changes: the interface itself and, for a LAGG, its ports."""
    if method in ("interface.update", "interface.delete"):
        names = {str(params[0])}
        data = params[1] if method == "interface.update" and len(params) > 1 else {}
    else:
        data = params[0] if params else {}
        names = {data["name"]} if data.get("name") else set()
    return names | set(data.get("lag_ports") or []) | set(data.get("bridge_members") or [])


def _alias_key(alias: dict[str, Any]) -> tuple[str, str, int]:
    address = str(ipaddress.ip_address(alias["address"]))
    return alias.get("type", "INET"), address, int(alias["netmask"])


def _same(key: str, have: Any, want: Any) -> bool:
    if key == "aliases":
        try:
            return {_alias_key(a) for a in have or []} == {_alias_key(a) for a in want or []}
        except (KeyError, ValueError, TypeError):
            return False
    if key in ("lag_ports", "bridge_members"):
        return sorted(have or []) == sorted(want or [])
    return have == want


def entry_matches(entry: dict[str, Any] | None, data: dict[str, Any], *, ignore: tuple[str, ...] = ()) -> bool:
    return entry is not None and all(_same(k, entry.get(k), v) for k, v in data.items() if k not in ignore)


def call_holds(method: str, params: list[Any], interfaces: dict[str, dict[str, Any]]) -> bool:
    """Whether the saved config already is what this interface call asks for."""
    if method == "interface.update":
        return entry_matches(interfaces.get(str(params[0])), params[1])
    if method == "interface.delete":
        return str(params[0]) not in interfaces
    if method == "interface.create":
        name = params[0].get("name")
        # Without a name TrueNAS picks the next free one: there is nothing to compare, so it never holds.
        return bool(name) and entry_matches(interfaces.get(name), params[0], ignore=("type", "name"))
    raise ValueError(f"not an interface call: {method}")


def our_lines(value: str | list[str]) -> list[str]:
    """Our entries in a hosts value, as 'address name' pairs joined by a tab."""
    if isinstance(value, list):
        lines = [item[: -len(hostsblock.ENTRY_TAG)].strip() for item in value if hostsblock.is_ours(item)]
    else:
        lines, inside = [], False
        for line in value.splitlines():
            if line.strip().startswith(hostsblock.BEGIN_PREFIX):
                inside = True
            elif inside and line.strip() == hostsblock.END_MARK:
                inside = False
            elif inside and line.strip():
                lines.append(line.strip())
    return ["\t".join(line.split()[:2]) for line in lines if len(line.split()) >= 2]


def rebase_hosts(desired: str | list[str], current: str | list[str]) -> str | list[str]:
    """Our lines from ``desired`` merged into ``current``, in ``current``'s form; the user's lines kept."""
    lines = our_lines(desired)
    if isinstance(current, str):
        return hostsblock.merge_marked_block(current, lines)
    tagged = [f"{line.replace(chr(9), ' ')} {hostsblock.ENTRY_TAG}" for line in lines]
    return [item for item in current if not hostsblock.is_ours(item)] + tagged
