"""This machine as the NAS under test (system ``local``): programs run here, on its own pool, with its
own ARC counters. The pool is measured here; what crosses the network (iperf3, SMB) is measured with
desktops that join the run (bench/run/suite_joined.py): this system never runs a program elsewhere."""
from __future__ import annotations

import os
import re
import socket
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from pathlib import Path

from ..backends.linux.proc_net_dev import counter_reader
from ..errors import ValidationError
from ..runner import CancelToken, Completed, Runner
from .host_os import host_os
from .local import LocalFacts

if TYPE_CHECKING:
    from ..backends.freebsd.sysctl import SysctlSource

NAS_NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")


class LocalHosts:
    """bench.hosts.Hosts for one machine: the NAS is here, and it is the only host."""

    def __init__(self, nas: str, runner: Runner | None = None, log_dir: Path | None = None):
        self.nas = nas
        self.runner = runner or Runner()
        self.log_dir = log_dir or Path("/run/tengig/bench")

    def _here(self, host: str) -> None:
        if host != self.nas:
            raise ValidationError.one("clients", f"{host!r} is another machine: `system: \"local\"` runs programs only on "
                                      f"this NAS ({self.nas})")

    def run(self, host: str, argv: Sequence[str], *, timeout: float, check: bool = True,
            env: Mapping[str, str] | None = None, cancel: CancelToken | None = None) -> Completed:
        self._here(host)
        return self.runner.run(argv, timeout=timeout, check=check, env=env, cancel=cancel)

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, env: Mapping[str, str] | None = None,
              stdin_pipe: bool = False, stdout_pipe: bool = False) -> subprocess.Popen:
        self._here(host)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        return self.runner.spawn(argv, log_path=self.log_dir / f"{log_name}.log", env=env, stdin_pipe=stdin_pipe,
                                 stdout_pipe=stdout_pipe)

    def port_reader(self, host: str, ifname: str):
        """This machine's port counters from /proc/net/dev (bench/join/port_timeline.py samples a copy with it);
        None where there is none (FreeBSD)."""
        self._here(host)
        return counter_reader(ifname)

NAS_NAME_ENV = "TENGIG_NAS_NAME"


def _this_truenas():
    from ..backends.truenas import THIS_TRUENAS
    from ..client.client import Client

    return Client(THIS_TRUENAS)


def nas_name() -> str:
    """What reports call this NAS: $TENGIG_NAS_NAME (the lab's nas sets it), else its short host name."""
    named = os.environ.get(NAS_NAME_ENV, "").strip().lower()
    if named:
        if not NAS_NAME_RE.fullmatch(named):
            raise ValidationError.one(NAS_NAME_ENV, f"{named!r} is not a NAS name (allowed: {NAS_NAME_RE.pattern})")
        return named
    short = socket.gethostname().split(".")[0].lower()
    return short if NAS_NAME_RE.fullmatch(short) else "nas"


class LocalBenchSystem:
    """bench.run.suite.BenchSystem for the machine tengig runs on."""

    name = "local"
    clients_hint = ("the network and SMB are measured from desktops that join the run over the network: `join: N` "
                    "for how many (each runs `tengig client join URL --token T`, the token is shown when the run "
                    "starts)")
    accepts_joins = True

    def __init__(self, facts: LocalFacts, pool: str, runner: Runner | None = None,
                 truenas: Callable[[], Any] | None = None, sysctl: "SysctlSource | None" = None):
        """``truenas``: opens a client of this TrueNAS's middlewared (default on TrueNAS: its unix socket,
        where root is logged in); the scratch dataset and the share then go through its API, as TrueNAS
        wants its datasets and shares handled. Elsewhere the zfs CLI and the running Samba's smb.conf.
        ``os``: this machine's OS as ``facts`` say it (systems/host_os.py: ARC counters, cache drop, fio's
        ioengine); ``sysctl`` replaces a FreeBSD machine's sysctl tree (recorded output in tests)."""
        self.facts = facts
        self.nas = nas_name()
        self.pool = pool
        self.default_clients: list[str] = []
        self.runner = runner or Runner()
        self.os = host_os(facts.system, runner=self.runner, sysctl=sysctl)
        self.hosts = LocalHosts(self.nas, self.runner)
        if truenas is None and facts.flavour == "truenas-app":
            from .app import truenas_client

            truenas = truenas_client   # the configured TrueNAS, with its key (systems/app.py)
        elif truenas is None and facts.flavour.startswith("truenas"):
            truenas = _this_truenas
        self.truenas = truenas

    def _backend(self):
        from ..backends.truenas import PerCallCaller, TrueNASBackend

        return TrueNASBackend(PerCallCaller(self.truenas))

    def storage(self, ctx):
        if self.truenas is not None:
            from ..backends.truenas import TrueNASScratch

            if self.facts.flavour == "truenas-app":
                from .app_storage import AppScratch

                return AppScratch(TrueNASScratch(self._backend()), self.facts.mountpoints)
            return TrueNASScratch(self._backend())
        from ..backends.linux.zfs import ZfsCli

        return ZfsCli(ctx, self.nas, scratch_parent=self.facts.scratch_parent(self.pool))

    def share(self, ctx, name: str):
        """The SMB share desktops copy to: from TrueNAS's API on a TrueNAS, else the running Samba's smb.conf."""
        from ..bench.phases.nas_share import find_share, share_on_truenas

        if self.truenas is not None:
            return share_on_truenas(self._backend(), name)
        return find_share(ctx, self.nas, name)

    def environment(self):
        from ..results.environment import collect_environment

        return collect_environment(self.runner, dataset=self.pool, netns=None)
