"""The lab's hosts as bench.hosts.Hosts (the lab's own setup runs each host's programs there, as a person
at that machine would), and a cable as LinkUnderTest, as its kernels say it is now: for what the lab
measures itself (a mesh, a LAGG). A benchmark of the lab's NAS is a user's run: lab/nas_run.py."""
from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping, Sequence

from ..bench.phases.network import LinkUnderTest
from ..runner import CancelToken, Completed
from ..verdict.ceilings import ethernet_rate_of_tbf
from .lab import Lab
from .network import read_port


class LabHosts:
    """The lab's hosts for benchmarks (bench.hosts.Hosts). Each host's programs run in its network
    namespace; how they enter it is the lab's own choice, made here and never by a caller: on the hosts
    in ``root_mounts`` (default: the NAS) they keep the root mount namespace (nsenter), elsewhere they
    get `ip netns exec`'s own (which also bind-mounts the host's /etc/hosts). On the NAS it must be the
    root one: the zfs-fuse daemon and its mounts live there, and `ip netns exec` would give each `zfs`
    command a private copy of the mount table, where a forced unmount of a scratch dataset does not
    reach the daemon (it stays "busy" forever)."""

    def __init__(self, lab: Lab, root_mounts: Iterable[str] | None = None):
        self.lab = lab
        self.nas = lab.require_up().spec.nas
        self.root_mounts = frozenset((self.nas,) if root_mounts is None else root_mounts)

    def netns_mode(self, host: str) -> str:
        """How a program enters ``host``'s namespace (runner.in_netns): "nsenter" or "exec"."""
        return "nsenter" if host in self.root_mounts else "exec"

    def run(self, host: str, argv: Sequence[str], *, timeout: float, check: bool = True,
            env: Mapping[str, str] | None = None, cancel: CancelToken | None = None) -> Completed:
        return self.lab.run(host, argv, timeout=timeout, check=check, env=env, cancel=cancel,
                            netns_mode=self.netns_mode(host))

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, env: Mapping[str, str] | None = None,
              stdin_pipe: bool = False, stdout_pipe: bool = False) -> subprocess.Popen:
        return self.lab.spawn(host, argv, log_name=log_name, env=env, stdin_pipe=stdin_pipe, stdout_pipe=stdout_pipe,
                              netns_mode=self.netns_mode(host))


def _live_port(lab: Lab, host: str, other: str) -> dict:
    """What ``host``'s kernel says now of its port towards ``other`` (MTU, tbf rate): the live system,
    not the plan, which a person may have changed since `lab up`."""
    port = lab.plan().cable(host, other).port_of(host)
    return read_port(lab.runner, port.netns, port.ifname)


def lab_link(lab: Lab, client: str, server: str | None = None) -> LinkUnderTest:
    """The cable as it is now: addresses from the plan, MTU and line rate (from the shaper the NAS's end
    carries, as bench/phases/nas_port.py reads it) from the NAS's kernel."""
    plan = lab.plan()
    server = server or plan.spec.nas
    cable = plan.cable(client, server)
    live = _live_port(lab, server, client)
    tbf = live["tbf_rate_bps"]
    return LinkUnderTest(
        name=cable.name,
        client=client,
        server=server,
        server_address=plan.address_of(server, client),
        client_address=plan.address_of(client, server),
        line_rate_bps=int(ethernet_rate_of_tbf(tbf, live["mtu"])) if tbf else None,
        mtu=live["mtu"],
    )
