"""The lab as a mesh target: its hosts and cables as a mesh request (each lab port reserved for the
peer its veth already reaches, at the cable's configured rate), and each host's network and hosts
file for the Linux backend. On `tengig lab up --bare` the cables exist with no addresses: applying
the plan is what makes them work, as on three real machines freshly cabled."""
from __future__ import annotations

from collections.abc import Sequence

from ..backends.linux.ip import LinuxNetwork
from ..mesh.apply_linux import HostsFile
from ..mesh.request import MeshRequest
from .hosts import LabHosts
from .lab import Lab

UNSHAPED_RATE_BPS = 10 * 10**9  # an unshaped veth is planned as a 10G port (its real rate is CPU-bound)


def lab_mesh_request(lab: Lab, *, prefix: int = 30, mtu: int | None = None, name_suffix: str = "",
                     existing_networks: Sequence[str] = ()) -> MeshRequest:
    plan = lab.plan()
    ports: dict[str, list[dict]] = {h: [] for h in plan.spec.hosts}
    for cable in plan.cables:
        rate = cable.shaping.line_rate_bps if cable.shaping else UNSHAPED_RATE_BPS
        for near, far in ((cable.a, cable.b), (cable.b, cable.a)):
            ports[near.host].append({"name": near.ifname, "speed_bps": rate, "peer": far.host})
    return MeshRequest.model_validate({
        "hosts": [{"name": h, "kind": "linux", "ports": ports[h]} for h in plan.spec.hosts],
        "existing_networks": list(existing_networks),
        "options": {"prefix": prefix, "mtu": mtu or plan.spec.mtu, "name_suffix": name_suffix},
    })


class LabNetHosts(LabHosts):
    """Lab hosts for network checks: every program, the NAS's too, runs with `ip netns exec`, which
    also bind-mounts the host's own /etc/hosts (names must resolve as that host sees them; the NAS's
    root mount namespace, which benchmarks need for zfs-fuse, would show the machine's /etc/hosts)."""

    def __init__(self, lab: Lab):
        super().__init__(lab, root_mounts=())


def lab_network(lab: Lab, host: str) -> LinuxNetwork:
    return LinuxNetwork(lab.runner, netns=lab.netns(host))


def lab_hosts_file(lab: Lab, host: str) -> HostsFile:
    return HostsFile(lab.paths.netns_etc_dir(lab.netns(host)) / "hosts")


class LabMeshSystem:
    """The lab's three hosts as one mesh system (all of them reachable from here)."""

    name = "the lab"

    def __init__(self, lab: Lab | None = None):
        self.lab = lab or Lab()
        self.lab.require_up()

    def hosts(self) -> list[str]:
        return list(self.lab.plan().spec.hosts)

    def network(self, host: str) -> LinuxNetwork:
        return lab_network(self.lab, host)

    def hosts_file(self, host: str) -> HostsFile:
        return lab_hosts_file(self.lab, host)

    def runner_hosts(self) -> LabNetHosts:
        return LabNetHosts(self.lab)
