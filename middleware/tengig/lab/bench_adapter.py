"""What the benchmarks need to know about the lab: its hosts as bench.hosts.Hosts, and its links as
LinkUnderTest (configured rates stand in for the negotiated speed a real NIC reports)."""
from __future__ import annotations

import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence

from ..bench.network import LinkUnderTest
from ..runner import CancelToken, Completed
from . import samba
from ..verdict.ceilings import ethernet_rate_of_tbf
from .lab import Lab
from .network import read_port
from ..units import MiB
from .plan import POOL_NAME, SHARE_DATASET, SHARE_NAME


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
              stdin_pipe: bool = False) -> subprocess.Popen:
        return self.lab.spawn(host, argv, log_name=log_name, env=env, stdin_pipe=stdin_pipe,
                              netns_mode=self.netns_mode(host))


def _live_port(lab: Lab, host: str, other: str) -> dict:
    """What ``host``'s kernel says now of its port towards ``other`` (MTU, tbf rate): the live system,
    not the plan, which a person may have changed since `lab up`."""
    port = lab.plan().cable(host, other).port_of(host)
    return read_port(lab.runner, port.netns, port.ifname)


def lab_link(lab: Lab, client: str, server: str | None = None) -> LinkUnderTest:
    """The cable as it is now: addresses from the plan, MTU and line rate (from the shaper the NAS's end
    carries, as bench/nas_port.py reads it) from the NAS's kernel."""
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


class LabSmbEndpoint:
    """The lab's share as bench.smb.SmbEndpoint: smbd on `nas`, clients in their namespaces."""

    def __init__(self, lab: Lab):
        st = lab.require_up()
        if st.spec.bare:
            from ..errors import LabError

            raise LabError("a bare lab has no share: run `tengig lab up` without --bare to measure SMB")
        self.lab, self.server, self.pool = lab, st.spec.nas, POOL_NAME
        self._plan = lab.plan()
        self._tmp = lab.paths.run / "bench"
        self._tmp.mkdir(parents=True, exist_ok=True)

    def smbclient_argv(self, client: str, commands: str | None) -> list[str]:
        return samba.smbclient_argv(self.lab.paths, client, self.server, commands)

    def smbstatus_argv(self) -> list[str]:
        return ["smbstatus", "--json", "-s", str(self.lab.paths.samba / "smb.conf")]

    def client_address(self, client: str) -> str:
        return self._plan.address_of(client, self.server)

    def client_ifname(self, client: str) -> str:
        return self._plan.cable(client, self.server).port_of(client).ifname

    def client_tmpdir(self, client: str) -> str:
        return str(self._tmp)


class LabBenchSystem:
    """The lab as bench.suite.BenchSystem: nas measured from desk (and lab), pool tgtank, share //nas/share."""

    name = "lab"

    # zfs-fuse emulates a pool (CPU-bound, 8 GiB sparse file): smaller files keep a lab run short
    pool_working_set = 128 * MiB

    def __init__(self, lab: Lab):
        st = lab.require_up()
        self.lab = lab
        self.nas = st.spec.nas
        self.pool = POOL_NAME
        self.default_clients = list(st.spec.hosts[1:])
        self.hosts = LabHosts(lab)
        self._bare = st.spec.bare

    def storage(self, ctx):
        from ..backends.linux.zfs import ZfsCli

        if self._bare:
            from ..errors import LabError

            raise LabError("a bare lab has no pool: run `tengig lab up` without --bare to measure the pool")
        return ZfsCli(ctx, self.nas)

    def smb(self) -> "LabSmbEndpoint":
        return LabSmbEndpoint(self.lab)

    def smb_mounted(self) -> "LabMountedSmbEndpoint":
        return LabMountedSmbEndpoint(self.lab)

    def link(self, client: str) -> LinkUnderTest:
        return lab_link(self.lab, client, self.nas)

    def mtus(self, client: str) -> dict[str, int]:
        """Each end's MTU as its kernel says now (not the plan's)."""
        cable = self.lab.plan().cable(client, self.nas)
        return {f"{host}:{cable.port_of(host).ifname}": _live_port(self.lab, host, other)["mtu"]
                for host, other in ((client, self.nas), (self.nas, client))}

    def environment(self):
        from ..results.environment import collect_environment

        return collect_environment(self.lab.runner, dataset=None if self._bare else SHARE_DATASET,
                                   netns=self.lab.netns(self.nas))


class LabMountedSmbEndpoint(LabSmbEndpoint):
    """The lab share mounted on each client with smbnetfs (no kernel CIFS here, docs/lab.md §7), for fio.
    smbnetfs runs in the client's network namespace but the root mount namespace, so the controller
    and the fio servers see the mount; it finds the server by address, with its own HOME for auth."""

    def __init__(self, lab: Lab):
        super().__init__(lab)
        self.controller = self.server

    def _base(self, client: str):
        return self.lab.paths.run / f"smbnetfs-{client}"

    def _root_mounts(self, ctx, client: str):
        """``ctx`` running `client`'s programs in the root mount namespace (the NAS's too, as always)."""
        return ctx.through(LabHosts(self.lab, root_mounts=(self.server, client)))

    def mount(self, ctx, client: str) -> str:
        base = self._base(client)
        home, mnt = base / "home", base / "mnt"
        (home / ".smb").mkdir(parents=True, exist_ok=True)
        mnt.mkdir(parents=True, exist_ok=True)
        (home / ".smb" / "smb.conf").write_text("[global]\n  client min protocol = SMB2\n  client max protocol = SMB3\n")
        conf = home / ".smb" / "smbnetfs.conf"
        server = self._plan.address_of(self.server, client)
        spec = self.lab.require_up().spec
        conf.write_text(f'auth "{server}" "{spec.smb_user}" "{spec.smb_password}"\nsmb_query_browsers false\n')
        conf.chmod(0o600)
        self._root_mounts(ctx, client).run(
            client, ["smbnetfs", str(mnt), "-o", "big_writes,max_write=1048576,max_read=1048576,max_readahead=1048576"],
            timeout=30, env={"HOME": str(home)}, tool="smbnetfs")
        share = mnt / server / SHARE_NAME
        for _ in range(50):
            if share.is_dir():
                return str(share)
            time.sleep(0.1)
        from ..errors import LabError

        raise LabError(f"smbnetfs on {client} does not show {share}")

    def unmount(self, ctx, client: str) -> None:
        mnt = self._base(client) / "mnt"
        self._root_mounts(ctx, client).run(client, ["umount", str(mnt)], timeout=30, check=False, record=False)

    def jobdir(self):
        return self._tmp
