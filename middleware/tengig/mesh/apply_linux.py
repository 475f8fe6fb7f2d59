"""Apply one host's part of a mesh plan on Linux: iproute2 for the ports, a marked block in the hosts
file for the names. Runtime only (a reboot forgets the addresses: install the rendered netplan,
networkd or ifupdown file for that).

All or nothing: each step pushes its undo; when a step fails, the undos run newest first and the
host is left as it was, then the error is raised. Re-applying a plan that holds changes nothing.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field, PrivateAttr

from ..backends.linux.ip import LinuxNetwork
from ..errors import TengigError
from .apply_changes import Change, changes_for, check_host, new_hosts_text, port_targets
from .models import MeshPlan
from .request import MeshRequest

Progress = Callable[[float, str], None]


class MeshApplyResult(BaseModel):
    host: str = Field(description="The host the plan was applied on.")
    changed: bool = Field(description="False when the host already matched the plan (nothing was touched).")
    changes: list[str] = Field(description="What was changed, in order, e.g. 'eth-desk: address none -> 10.250.12.1/24'.")
    persistent: bool = Field(description="Survives a reboot (TrueNAS: yes; Linux iproute2: no, install the rendered file).")
    hosts_file: str | None = Field(description="Hosts file written (Linux), or None.")
    _undo: list[Callable[[], None]] = PrivateAttr(default_factory=list)

    def undo(self) -> list[str]:
        """Take this apply back (when a later host of the same mesh fails); returns undo failures."""
        failures = _undo_all(self._undo)
        self._undo = []
        return failures


class HostsFile:
    """A hosts file, replaced atomically (rename) where it can be, in place where /etc/hosts is a bind
    mount (containers), which rename cannot replace."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def read(self) -> str:
        try:
            return self.path.read_text()
        except FileNotFoundError:
            return ""

    def write(self, text: str) -> None:
        mode = self.path.stat().st_mode & 0o777 if self.path.exists() else 0o644
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tengig-hosts-")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
            os.chmod(tmp, mode)
            try:
                os.replace(tmp, self.path)
            except OSError:  # EBUSY on a bind-mounted /etc/hosts
                self.path.write_text(text)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def apply_linux(
    request: MeshRequest,
    plan: MeshPlan,
    host: str,
    net: LinuxNetwork,
    hosts_file: HostsFile,
    *,
    progress: Progress | None = None,
) -> MeshApplyResult:
    report = progress or (lambda p, d: None)
    report(5, f"{host}: reading interfaces")
    targets = port_targets(request, plan, host)
    interfaces = net.interfaces()
    check_host(plan, host, targets, interfaces)
    hosts_before = hosts_file.read()
    hosts_after = new_hosts_text(plan, host, hosts_before)
    changes = changes_for(targets, interfaces, hosts_before, hosts_after)
    if not changes:
        report(100, f"{host}: already as planned, nothing changed")
        return MeshApplyResult(host=host, changed=False, changes=[], persistent=False, hosts_file=str(hosts_file.path))
    undo: list[Callable[[], None]] = []
    try:
        for i, change in enumerate(changes):
            report(10 + 85 * i / len(changes), f"{host}: {change.describe()}")
            undo.append(_do(change, net, hosts_file, hosts_before, hosts_after))
    except Exception as exc:
        failures = _undo_all(undo)
        left = f"; undoing also failed ({'; '.join(failures)}): check the host" if failures else "; the host is as it was"
        errno = exc.errno if isinstance(exc, TengigError) else None
        raise TengigError(f"{host}: applying the mesh failed at '{change.describe()}': {exc}{left}", errno=errno) from exc
    report(100, f"{host}: {len(changes)} change(s) applied")
    result = MeshApplyResult(host=host, changed=True, changes=[c.describe() for c in changes], persistent=False,
                             hosts_file=str(hosts_file.path))
    result._undo = undo
    return result


def _do(change: Change, net: LinuxNetwork, hosts_file: HostsFile, before: str, after: str) -> Callable[[], None]:
    """Make one change; return how to take it back."""
    port = change.port
    if change.kind == "mtu":
        net.set_mtu(port, int(change.after))
        return lambda: net.set_mtu(port, int(change.before))
    if change.kind == "address":
        net.add_address(port, change.after)
        return lambda: net.delete_address(port, change.after)
    if change.kind == "up":
        net.set_up(port, True)
        return lambda: net.set_up(port, False)
    hosts_file.write(after)
    return lambda: hosts_file.write(before)


def _undo_all(undo: list[Callable[[], None]]) -> list[str]:
    failures = []
    for step in reversed(undo):
        try:
            step()
        except Exception as exc:  # keep undoing the rest; report every failure
            failures.append(str(exc))
    return failures
