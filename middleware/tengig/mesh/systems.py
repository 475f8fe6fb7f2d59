"""Where a mesh is applied and verified: the seam between the mesh capability and the machines.

A MeshSystem names the plan's hosts it can act on and gives, for each, its network (iproute2), its
hosts file and a way to run programs there (for pings, getent and iperf3). The lab acts on all three
of its hosts; plain Linux acts on this machine only (the plan says which host it is); TrueNAS goes
through its own API (backends/truenas) and is added beside these.
"""
from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from ..backends.linux.ip import LinuxNetwork
from ..bench.hosts import Hosts
from ..runner import CancelToken, Completed, Runner
from .apply_linux import HostsFile


class MeshSystem(Protocol):
    name: str

    def hosts(self) -> list[str]: ...

    def network(self, host: str) -> LinuxNetwork: ...

    def hosts_file(self, host: str) -> HostsFile: ...

    def runner_hosts(self) -> Hosts: ...


class LocalHosts:
    """Programs run on this machine, whatever host name the plan gives it."""

    def __init__(self, runner: Runner | None = None, logs: Path = Path("/run/tengig/logs")):
        self.runner = runner or Runner()
        self.logs = logs

    def run(self, host: str, argv: Sequence[str], *, timeout: float, check: bool = True,
            env: Mapping[str, str] | None = None, cancel: CancelToken | None = None) -> Completed:
        return self.runner.run(argv, timeout=timeout, check=check, env=env, cancel=cancel)

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, env: Mapping[str, str] | None = None,
              stdin_pipe: bool = False, stdout_pipe: bool = False) -> subprocess.Popen:
        self.logs.mkdir(parents=True, exist_ok=True)
        return self.runner.spawn(argv, log_path=self.logs / log_name, env=env, stdin_pipe=stdin_pipe,
                                 stdout_pipe=stdout_pipe)


class LocalMeshSystem:
    """This Linux machine, playing the plan's host `host`: iproute2 and /etc/hosts."""

    def __init__(self, host: str, *, hosts_path: Path = Path("/etc/hosts"), runner: Runner | None = None):
        self.name = f"this machine ({host})"
        self.host = host
        self.runner = runner or Runner()
        self.hosts_path = hosts_path

    def hosts(self) -> list[str]:
        return [self.host]

    def network(self, host: str) -> LinuxNetwork:
        return LinuxNetwork(self.runner)

    def hosts_file(self, host: str) -> HostsFile:
        return HostsFile(self.hosts_path)

    def runner_hosts(self) -> Hosts:
        return LocalHosts(self.runner)
