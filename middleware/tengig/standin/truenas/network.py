"""The stand-in's network: saved (staged) config versus active config, and interface.commit's rollback
timer (a stand-in following docs/truenas-api.md §3, not TrueNAS).

As in middlewared: create/update/delete edit only the saved config, and the first edit snapshots it
(``original``, middlewared's _original_datastores); ``has_pending_changes`` is "a snapshot exists".
``commit`` makes the saved config active and, with rollback and a timeout, starts a timer that restores
the snapshot unless ``checkin`` comes first; ``rollback`` restores it at once; ``cancel_rollback`` stops
the timer but keeps the snapshot. ``interface.query`` shows the saved config at the top level and the
active one in ``state`` (the kernel's view).

``on_active_change(active)`` is called, on the event loop, every time the active config changes
(commit, rollback, timed rollback) with a list of the active configs of configured interfaces: the hook
a lab test uses to make the config real in a network namespace.
"""
from __future__ import annotations

import asyncio
import copy
import errno
import ipaddress
from collections.abc import Callable
from typing import Any

from ...api.exceptions import CallError
from ...backends.truenas.version import TrueNASVersion, parse_version
from . import rules
from .seed import SeedInterface, StandinSeed

ActiveHook = Callable[[list[dict[str, Any]]], Any]


def _config_from_seed(seed: SeedInterface) -> dict[str, Any]:
    aliases = []
    for text in seed.aliases:
        iface = ipaddress.ip_interface(text)
        aliases.append({"type": "INET" if iface.version == 4 else "INET6", "address": str(iface.ip),
                        "netmask": iface.network.prefixlen})
    config = {"name": seed.name, "type": seed.type, "description": seed.description, "ipv4_dhcp": seed.ipv4_dhcp,
              "ipv6_auto": False, "aliases": aliases, "mtu": seed.mtu}
    if seed.type == "LINK_AGGREGATION":
        config.update(lag_protocol=seed.lag_protocol or "LACP", lag_ports=list(seed.lag_ports))
    return config


class NetworkState:
    def __init__(self, seed: StandinSeed, on_active_change: ActiveHook | None = None):
        self.version: TrueNASVersion = parse_version(seed.version_text)
        self.ports = {i.name: i for i in seed.interfaces if i.type == "PHYSICAL"}
        self.saved: dict[str, dict[str, Any]] = {}
        for item in seed.interfaces:
            configured = item.configured if item.configured is not None else bool(
                item.aliases or item.mtu or item.ipv4_dhcp or item.description or item.type != "PHYSICAL")
            if configured:
                self.saved[item.name] = _config_from_seed(item)
        self.active = copy.deepcopy(self.saved)
        self.original: dict[str, dict[str, Any]] | None = None
        self.session_interface = seed.session_interface
        self.on_active_change = on_active_change
        self._timer: asyncio.TimerHandle | None = None
        self._session_ip: str | None = None
        self.bind_session_ip()

    @property
    def core(self) -> bool:
        return self.version.platform == "CORE"

    # -- interface.query ----------------------------------------------------------------------------

    def entries(self) -> list[dict[str, Any]]:
        names = sorted(set(self.ports) | set(self.saved))
        return [self._entry(name) for name in names]

    def _entry(self, name: str) -> dict[str, Any]:
        saved = self.saved.get(name) or {}
        itype = "PHYSICAL" if name in self.ports else saved.get("type", "LINK_AGGREGATION")
        entry: dict[str, Any] = {
            "id": name, "name": name, "fake": name not in self.ports and name not in self.active, "type": itype,
            "state": self._state(name),
            "aliases": copy.deepcopy(saved.get("aliases") or []),
            # middlewared: an unconfigured port shows DHCP on only while nothing at all is configured
            "ipv4_dhcp": saved.get("ipv4_dhcp", not self.saved), "ipv6_auto": saved.get("ipv6_auto", not self.saved),
            "description": saved.get("description", ""), "mtu": saved.get("mtu"),
        }
        if itype == "LINK_AGGREGATION":
            entry.update(lag_protocol=saved.get("lag_protocol"), lag_ports=list(saved.get("lag_ports") or []))
            if not self.core and saved.get("lag_protocol") in ("LACP", "LOADBALANCE"):
                entry["xmit_hash_policy"] = saved.get("xmit_hash_policy") or "LAYER2+3"
                if saved.get("lag_protocol") == "LACP":
                    entry["lacpdu_rate"] = saved.get("lacpdu_rate") or "SLOW"
        return entry

    def _state(self, name: str) -> dict[str, Any]:
        active = self.active.get(name) or {}
        port = self.ports.get(name)
        if port is not None:
            up, media, mac = port.link_up, port.media_subtype, port.mac
        elif active:  # an active LAGG is up when one of its ports is
            up = any(self.ports[p].link_up for p in active.get("lag_ports") or [] if p in self.ports)
            media, mac = "", next((self.ports[p].mac for p in active.get("lag_ports") or [] if p in self.ports), "")
        else:  # saved but never committed: not in the kernel yet
            up, media, mac = False, "", ""
        return {
            "name": name, "orig_name": name, "description": name, "mtu": active.get("mtu") or 1500,
            "cloned": port is None, "flags": ["UP"] if up else [], "nd6_flags": [], "capabilities": [],
            "link_state": ("LINK_STATE_UP" if up else "LINK_STATE_DOWN") if active or port else "",
            "media_type": "Ethernet" if media else "", "media_subtype": media,
            "active_media_type": "Ethernet" if media else "", "active_media_subtype": media,
            "supported_media": [], "media_options": None, "link_address": mac, "permanent_link_address": mac or None,
            "hardware_link_address": mac, "aliases": copy.deepcopy(active.get("aliases") or []), "vrrp_config": [],
        }

    def entry(self, name: str) -> dict[str, Any]:
        if name not in self.ports and name not in self.saved:  # middlewared: a validation error with no field
            raise rules.ValidationErrors([(None, f"Interface {name} does not exist", errno.ENOENT)])
        return self._entry(name)

    # -- staged edits -------------------------------------------------------------------------------

    def _validate(self, schema: str, new: dict[str, Any], itype: str, given: dict[str, Any]) -> None:
        others = {n: c for n, c in self.saved.items() if n != new.get("name")}
        errors = rules.validate(
            schema, new, itype, others=others, port_names=set(self.ports) | set(self.saved), core=self.core,
            lag_prefix=self.version.lag_name_prefix, supported_protocols=self.version.lag_protocols, given=given)
        if errors:
            raise errors

    def _snapshot(self) -> None:
        if self.original is None:
            self.original = copy.deepcopy(self.saved)

    def create(self, data: Any) -> dict[str, Any]:
        given = rules.check_schema(data, core=self.core, update=False, api_models=self.version.protocol == "jsonrpc")
        if given["type"] != "LINK_AGGREGATION":
            raise CallError(f"this stand-in creates LINK_AGGREGATION interfaces only, not {given['type']}", errno.ENOTSUP)
        missing = [k for k in ("lag_protocol", "lag_ports") if k not in given]
        if missing:
            raise rules.ValidationErrors((f"interface_create.{k}", "This field is required") for k in missing)
        name = given.get("name") or self._next_name()
        new = {"description": "", "ipv4_dhcp": False, "ipv6_auto": False, "aliases": [], "mtu": None,
               **given, "name": name}
        self._validate("interface_create", new, "LINK_AGGREGATION", given)
        self._snapshot()
        for port in new["lag_ports"]:  # middlewared resets a member's own config when it joins
            self.saved.pop(port, None)
        self.saved[name] = new
        return self._result(name)

    def _result(self, name: str) -> dict[str, Any]:
        """What create and update answer: the entry through middlewared's result model, whose defaults
        fill in the fields a query leaves out (lag_ports and bridge_members on every interface)."""
        return {"lag_ports": [], "bridge_members": [], **self._entry(name)}

    def _next_name(self) -> str:
        number = 0
        while f"{self.version.lag_name_prefix}{number}" in self.saved:
            number += 1
        return f"{self.version.lag_name_prefix}{number}"

    def update(self, name: str, data: Any) -> dict[str, Any]:
        given = rules.check_schema(data, core=self.core, update=True, api_models=self.version.protocol == "jsonrpc")
        current = self.entry(name)
        new = {**(self.saved.get(name) or {"name": name, "type": current["type"], "description": "",
                                                "ipv4_dhcp": False, "ipv6_auto": False, "aliases": [], "mtu": None}),
               **given, "name": name}
        self._validate("interface_update", new, current["type"], given)
        self._snapshot()
        self.saved[name] = new
        return self._result(name)

    def delete(self, name: str) -> str:
        self.entry(name)
        self._snapshot()
        for port in (self.saved.get(name) or {}).get("lag_ports") or []:
            self.saved.pop(port, None)
        self.saved.pop(name, None)
        return name

    # -- commit, checkin, rollback ------------------------------------------------------------------

    def commit(self, rollback: bool, checkin_timeout: int) -> None:
        self._cancel_timer()
        self._activate()
        if rollback and checkin_timeout:
            self._snapshot()  # a commit with nothing staged still rolls back to what it replaced
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(checkin_timeout, self.rollback)
        else:
            self.original = None

    def rollback(self) -> None:
        self._cancel_timer()
        if self.original is not None:
            self.saved, self.original = self.original, None
        self._activate()

    def checkin(self) -> None:
        self._cancel_timer()
        self.original = None

    def cancel_rollback(self) -> None:
        self._cancel_timer()

    def checkin_waiting(self) -> int | None:
        if self._timer is None:
            return None
        remaining = self._timer.when() - asyncio.get_running_loop().time()
        return int(remaining) if remaining > 0 else None

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None

    def _activate(self) -> None:
        changed = self.active != self.saved
        self.active = copy.deepcopy(self.saved)
        if changed and self.on_active_change is not None:
            self.on_active_change(self.active_configs())

    def active_configs(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(self.active[name]) for name in sorted(self.active)]

    # -- the session's interface --------------------------------------------------------------------

    def websocket_local_ip(self) -> str | None:
        """The seeded session interface's first seeded address: where the session's packets arrive."""
        return self._session_ip

    def bind_session_ip(self) -> None:
        cfg = self.active.get(self.session_interface or "") or {}
        self._session_ip = (cfg.get("aliases") or [{}])[0].get("address")

    def websocket_interface(self) -> dict[str, Any] | None:
        """As middlewared: the interface whose saved or active aliases hold the local IP, or null."""
        ip = self.websocket_local_ip()
        if ip is None:
            return None
        for entry in self.entries():
            if any(a.get("address") == ip for a in entry["aliases"] + entry["state"]["aliases"]):
                return self._result(entry["name"])  # through the result model, as create and update
        return None
