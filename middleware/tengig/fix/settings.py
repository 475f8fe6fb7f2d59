"""The seam a fix changes the NAS through: read a setting, what puts it back exactly, and write it. On plain
Linux and in the lab the system's own tools, as a person at the NAS uses them (the running smbd's smb.conf and
`smbcontrol smbd reload-config`, zfs, ip); on a TrueNAS its own API (smb.update, pool.dataset.update), since
TrueNAS writes smb.conf from its database and overwrites a hand edit; a TrueNAS's ports through its staged
network change (truenas_interface.py). Every method raises a TengigError saying
what it could not do."""
from __future__ import annotations

import errno
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ..bench.context import BenchContext
from ..bench.phases.nas_share import running_smbd_conf
from ..errors import TengigError, ValidationError
from ..names import DATASET_RE, IFNAME_RE
from .busy import pool_scan, session_words, smbstatus_sessions, zpool_scan
from .models import Setting

T = 30
INHERIT = "inherit"  # a dataset property put back by inheriting it again, as it was before the fix
VALUE_RE = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")  # every value a fix writes: one word, no line break or quote


class Settings(Protocol):
    def read(self, setting: Setting) -> str:
        """The setting's value now (testparm's, zfs's or TrueNAS's words)."""
        ...

    def previous(self, setting: Setting) -> str:
        """What puts it back exactly as it is now: its value, or INHERIT for a dataset property not set on the
        dataset itself."""
        ...

    def write(self, setting: Setting, value: str) -> None:
        """Set it (INHERIT: a dataset property inherited again), so that what reads it next sees ``value``."""
        ...

    def busy(self, pool: str | None) -> list[str]:
        """What else the NAS is doing now, in words (fix/busy.py): SMB sessions, a scrub or resilver on ``pool``."""
        ...


def _checked(setting: Setting, value: str) -> str:
    if not VALUE_RE.fullmatch(value):
        raise ValidationError.one("value", f"{value!r} is no value tengig writes to {setting.text()}")
    pattern = {"dataset": DATASET_RE, "interface": IFNAME_RE}.get(setting.kind)
    if pattern is not None and not pattern.fullmatch(setting.object):
        raise ValidationError.one("object", f"{setting.object!r} is not a {setting.kind} name")
    return value


class LocalSettings:
    """This machine's settings (system local, the lab's nas), through the run's own command seam."""

    def __init__(self, ctx: BenchContext, nas: str):
        self.ctx, self.nas = ctx, nas

    def _run(self, argv: list[str], tool: str):
        return self.ctx.run(self.nas, argv, timeout=T, check=False, tool=tool)

    def _conf(self) -> Path:
        return Path(running_smbd_conf(self.ctx, self.nas))

    def read(self, setting: Setting) -> str:
        if setting.kind == "smb":
            conf = self._conf()
            done = self._run(["testparm", "-s", f"--parameter-name={setting.key}", str(conf)], "testparm")
            lines = done.stdout.strip().splitlines()
            if not lines:  # testparm exits 1 over a problem elsewhere and still prints the value
                raise TengigError(f"testparm printed no {setting.key} for {conf}: {done.stderr.strip()[-200:]}")
            return lines[-1].strip()
        if setting.kind == "dataset":
            return self._zfs_get(setting)[0]
        _checked(setting, "0")
        done = self._run(["ip", "-j", "link", "show", "dev", setting.object], "ip")
        try:
            return str(json.loads(done.stdout)[0]["mtu"])
        except (ValueError, LookupError, TypeError):
            raise TengigError(f"`ip link show dev {setting.object}` gave no MTU: "
                              f"{(done.stderr or done.stdout).strip()[:200]}") from None

    def _zfs_get(self, setting: Setting) -> tuple[str, str]:
        _checked(setting, "0")
        done = self._run(["zfs", "get", "-H", "-o", "value,source", setting.key, setting.object], "zfs")
        parts = done.stdout.strip().split("\t")
        if done.returncode != 0 or len(parts) != 2:
            raise TengigError(f"`zfs get {setting.key} {setting.object}` failed: {done.stderr.strip()[:200]}")
        return parts[0], parts[1]

    def previous(self, setting: Setting) -> str:
        if setting.kind == "dataset":
            value, source = self._zfs_get(setting)
            return value if source == "local" else INHERIT
        return self.read(setting)

    def write(self, setting: Setting, value: str) -> None:
        _checked(setting, value)
        if setting.kind == "smb":
            conf = self._conf()
            _replace_file(conf, _with_option(conf, setting.key, value))
            self._must(["smbcontrol", "-s", str(conf), "smbd", "reload-config"], "smbcontrol")
        elif setting.kind == "dataset":
            argv = (["zfs", "inherit", setting.key, setting.object] if value == INHERIT
                    else ["zfs", "set", f"{setting.key}={value}", setting.object])
            self._must(argv, "zfs")
        else:
            self._must(["ip", "link", "set", "dev", setting.object, "mtu", value], "ip")

    def busy(self, pool: str | None) -> list[str]:
        conf = self._conf()
        done = self._run(["smbstatus", "--json", "-s", str(conf)], "smbstatus")
        try:  # what cannot be listed is not known to be busy (busy.py: as far as smbstatus shows)
            found = smbstatus_sessions(done.stdout) if done.returncode == 0 else []
        except TengigError:
            found = []
        if pool is not None and DATASET_RE.fullmatch(pool):
            scan = self._run(["zpool", "status", pool], "zpool")
            found += zpool_scan(pool, scan.stdout) if scan.returncode == 0 else []
        return found

    def _must(self, argv: list[str], tool: str) -> None:
        done = self._run(argv, tool)
        if done.returncode != 0:
            raise TengigError(f"`{' '.join(argv)}` failed (exit {done.returncode}): "
                              f"{(done.stderr or done.stdout).strip()[:300]}")


def _with_option(conf: Path, name: str, value: str) -> str:
    from .smb_conf import with_global_option

    try:
        return with_global_option(conf.read_text(), name, value)
    except OSError as exc:
        raise TengigError(f"cannot read {conf} ({exc.strerror})", errno=exc.errno) from exc


def _replace_file(path: Path, text: str) -> None:
    """``path``'s new text, whole or not at all (a reader never sees half of it), its mode and owner kept."""
    st = path.stat()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.chmod(tmp, st.st_mode & 0o7777)
        os.chown(tmp, st.st_uid, st.st_gid)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise TengigError(f"cannot write {path} ({exc.strerror})", errno=exc.errno) from exc


class TrueNasSettings:
    """A TrueNAS's settings through its API (``call(method, *params)``: TrueNASBackend.call)."""

    def __init__(self, call: Callable[..., Any]):
        self.call = call

    def read(self, setting: Setting) -> str:
        if setting.kind == "smb":
            value = self.call("smb.config").get(setting.key)
            return str(value).lower() if isinstance(value, bool) else str(value)
        return self._dataset(setting)[0]

    def _dataset(self, setting: Setting) -> tuple[str, str]:
        if setting.kind != "dataset":
            raise TengigError(f"{setting.text()}: on a TrueNAS an interface changes through interface.update, "
                              "commit and checkin, with a desktop of the run as the probe "
                              "(fix/truenas_interface.py), not through this seam", errno=errno.ENOTSUP)
        found = self.call("pool.dataset.query", [["id", "=", _checked(setting, "0") and setting.object]])
        prop = (found[0].get(setting.key) if found else None) or {}
        if not isinstance(prop, dict) or "value" not in prop:
            raise TengigError(f"pool.dataset.query has no {setting.key} for {setting.object}", errno=errno.ENOENT)
        return str(prop["value"]).upper(), str(prop.get("source") or "")

    def previous(self, setting: Setting) -> str:
        if setting.kind == "dataset":
            value, source = self._dataset(setting)
            return value if source.upper() == "LOCAL" else INHERIT
        return self.read(setting)

    def busy(self, pool: str | None) -> list[str]:
        found: list[str] = []
        try:  # what TrueNAS does not show is not known to be busy (a stand-in or an older TrueNAS may lack it)
            found += session_words(self.call("smb.status", "SESSIONS") or [])
        except TengigError:
            pass
        if pool is not None:
            try:
                entries = self.call("pool.query", [["name", "=", pool]])
            except TengigError:
                entries = []
            found += pool_scan(pool, entries[0] if entries else None)
        return found

    def write(self, setting: Setting, value: str) -> None:
        _checked(setting, value)
        if setting.kind == "smb":
            self.call("smb.update", {setting.key: value == "true" if value in ("true", "false") else value})
        else:
            self._dataset(setting)
            self.call("pool.dataset.update", setting.object, {setting.key: value.upper()})


class InterfacesApart:
    """One seam for the NAS's interfaces, another for the rest: on a TrueNAS its middlewared owns the network
    configuration (fix/truenas_interface.py), whatever serves the SMB server and the datasets."""

    def __init__(self, rest: Settings, interfaces: Settings):
        self.rest, self.interfaces = rest, interfaces

    def _of(self, setting: Setting) -> Settings:
        return self.interfaces if setting.kind == "interface" else self.rest

    def read(self, setting: Setting) -> str:
        return self._of(setting).read(setting)

    def previous(self, setting: Setting) -> str:
        return self._of(setting).previous(setting)

    def write(self, setting: Setting, value: str) -> None:
        self._of(setting).write(setting, value)

    def busy(self, pool: str | None) -> list[str]:
        """What else the NAS is doing: its SMB sessions and the pool's scrub, from the seam that serves them."""
        return self.rest.busy(pool)


def settings_of(system: Any, ctx: BenchContext, interfaces: Settings | None = None) -> Settings:
    """The settings seam of a bench system (systems/local_bench.LocalBenchSystem): TrueNAS's API where it has one
    (its ``truenas`` opener), else this machine's tools; ``interfaces``: the seam the NAS's ports change through
    instead (a TrueNAS's interface.update, commit and checkin: fix/truenas_interface.TrueNasInterfaces)."""
    opener = getattr(system, "truenas", None)
    rest: Settings
    if opener is not None:
        from ..backends.truenas import PerCallCaller, TrueNASBackend

        rest = TrueNasSettings(TrueNASBackend(PerCallCaller(opener)).call)
    else:
        rest = LocalSettings(ctx, system.nas)
    return rest if interfaces is None else InterfacesApart(rest, interfaces)
