"""TrueNASBackend: what tengig does on a TrueNAS, through its API only (docs/truenas-api.md §3), version-aware.

    backend = TrueNASBackend(client)           # any Caller: Client, MiddlewareCaller, a test fake
    backend.version.protocol                   # 'legacy' on 24.10 / CORE, 'jsonrpc' on 25.04+
    backend.nics()                             # [Nic, ...] from interface.query + websocket_interface
    backend.update_interface("enp3s0f0", {...}); backend.commit(checkin_timeout=30); backend.checkin()
    backend.merge_hosts(entries)               # our tagged entries replaced, the user's kept

Interface changes are staged by TrueNAS: create/update/delete only edit the saved config; ``commit``
applies it (with a rollback timer), ``checkin`` keeps it. Use staged_change.apply_staged to do all of
that safely. Every call goes through ``call`` (errors translated in caller.py).
"""
from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from ...errors import ValidationError
from ... import hostsblock
from ...hostsblock import HostsEntry
from ...nic import Nic
from .caller import Caller, truenas_errors
from .nics import nics_from_query, session_interface_name
from .version import TrueNASVersion, parse_version


class TrueNASBackend:
    def __init__(self, caller: Caller):
        self.caller = caller

    def call(self, method: str, *params: Any, job: bool = False) -> Any:
        with truenas_errors(method):
            return self.caller.call(method, *params, job=job)

    @functools.cached_property
    def version(self) -> TrueNASVersion:
        return parse_version(self.call("system.version"))

    # -- inventory ----------------------------------------------------------------------------------

    def interfaces(self) -> list[dict[str, Any]]:
        """interface.query as TrueNAS answers it (saved config at the top, live ``state`` inside)."""
        return self.call("interface.query")

    def interface(self, name: str) -> dict[str, Any] | None:
        found = self.call("interface.query", [["name", "=", name]])
        return found[0] if found else None

    def session_interface(self) -> str | None:
        """The interface this API session arrives on (never take it away without confirmation)."""
        return session_interface_name(self.call("interface.websocket_interface"))

    def nics(self) -> list[Nic]:
        return nics_from_query(self.interfaces(), self.session_interface())

    # -- staged interface changes -------------------------------------------------------------------

    def create_interface(self, data: dict[str, Any]) -> dict[str, Any]:
        return self.call("interface.create", data)

    def update_interface(self, name: str, data: dict[str, Any]) -> dict[str, Any]:
        return self.call("interface.update", name, data)

    def delete_interface(self, name: str) -> str:
        return self.call("interface.delete", name)

    def has_pending_changes(self) -> bool:
        return bool(self.call("interface.has_pending_changes"))

    def commit(self, *, rollback: bool = True, checkin_timeout: int) -> None:
        self.call("interface.commit", {"rollback": rollback, "checkin_timeout": checkin_timeout})

    def checkin(self) -> None:
        self.call("interface.checkin")

    def checkin_waiting(self) -> int | None:
        """Seconds left before TrueNAS rolls the committed change back by itself; None: nothing waits."""
        return self.call("interface.checkin_waiting")

    def rollback(self) -> None:
        self.call("interface.rollback")

    def cancel_rollback(self) -> None:
        self.call("interface.cancel_rollback")

    # -- hosts --------------------------------------------------------------------------------------

    def hosts(self) -> str | list[str]:
        """network.configuration hosts: a list on SCALE 23.10+, one multi-line string on CORE/22.12."""
        return self.call("network.configuration.config")["hosts"]

    def set_hosts(self, value: str | list[str]) -> None:
        if isinstance(value, list) != self.version.hosts_as_list:
            wanted = "a list of lines" if self.version.hosts_as_list else "one multi-line string"
            raise ValidationError.one("hosts", f"{self.version.text} keeps hosts as {wanted}")
        self.call("network.configuration.update", {"hosts": value})

    def merged_hosts(self, entries: Iterable[HostsEntry], current: str | list[str] | None = None
                     ) -> str | list[str]:
        """The hosts value with our entries replaced and the user's kept (same form as TrueNAS keeps it)."""
        current = self.hosts() if current is None else current
        if isinstance(current, str):
            return hostsblock.merge_hosts_block(current, entries)
        return hostsblock.merge_hosts_list(current, entries)

    def merge_hosts(self, entries: Iterable[HostsEntry]) -> str | list[str]:
        """Write our entries into TrueNAS's hosts (read, merge, write); returns what was written."""
        value = self.merged_hosts(entries)
        self.set_hosts(value)
        return value

    # -- SMB shares (docs/truenas-api.md §4: field names changed in 25.10) ---------------------------

    def smb_share_payload(self, name: str, path: str, *, readonly: bool = False, comment: str = "") -> dict[str, Any]:
        """sharing.smb.create's argument for this version: 'ro'/NO_PRESET before 25.10, 'readonly'/DEFAULT_SHARE from it."""
        version = self.version
        return {"name": name, "path": path, "comment": comment, "purpose": version.smb_purpose,
                "enabled": True, version.smb_readonly_field: readonly}

    def create_smb_share(self, name: str, path: str, *, readonly: bool = False, comment: str = "") -> dict[str, Any]:
        return self.call("sharing.smb.create", self.smb_share_payload(name, path, readonly=readonly, comment=comment))

    def smb_config(self) -> dict[str, Any]:
        """TrueNAS's SMB service settings (smb.config): 'multichannel' among them (SCALE 22.12.3 and later)."""
        return self.call("smb.config")

    def smb_shares(self, name: str | None = None) -> list[dict[str, Any]]:
        return self.call("sharing.smb.query", [["name", "=", name]] if name else [])

    def delete_smb_share(self, share_id: int) -> None:
        self.call("sharing.smb.delete", share_id)
