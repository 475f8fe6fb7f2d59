"""The operating system of the NAS tengig runs on, as the code that measures it must know it: one object
per OS, picked in one place (``host_os``) from what the machine says it is (``platform.system()``, or the
name LocalFacts read). Nothing else asks which OS this is.

- Linux (TrueNAS SCALE, the app, the lab's hosts): NICs from iproute2, ethtool, sysfs and the kernel log
  (backends.linux.nics); ARC counters from OpenZFS's /proc/spl/kstat/zfs/arcstats or zfs-fuse's kstat
  mount (bench.phases.arc); each port's byte counters from ``ip -s -j link``; fio's ``libaio``; before
  each read the host's page cache is dropped (``vm.drop_caches``, after ``sync``).
- FreeBSD (TrueNAS CORE and its jail): NICs from ``ifconfig -a -v`` and the device tree, ARC counters
  from ``kstat.zfs.misc.arcstats``, both sysctl reads through the freebsd-sysctl seam
  (backends.freebsd.sysctl: the freebsd-sysctl package on FreeBSD, the ``sysctl`` program where it is
  missing, recorded output in tests); each port's byte counters from ``netstat -i -b -n -W``
  (backends.freebsd.netstat); fio's ``posixaio`` (libaio is Linux's own). No cache is dropped:
  FreeBSD has no vm.drop_caches, and nothing needs dropping, because ZFS on FreeBSD keeps file data in
  the ARC and not in the VM page cache (read(2) and aio copy from the ARC; only mmap(2)ed pages sit in
  the page cache, and fio here does not mmap). The ARC itself is kept out of the reads by the scratch
  dataset's primarycache (bench/phases/cache_policy.py) and checked by the hit counters read around every read,
  as on Linux. A read phase says so: ``page_cache_dropped`` is null there, not true.
"""
from __future__ import annotations

import platform
from typing import TYPE_CHECKING

from ..backends.host_os import COUNTER_TIMEOUT, HostOs, OsName
from ..runner import Runner

if TYPE_CHECKING:
    from ..backends.arcstats import ArcSample
    from ..backends.freebsd.sysctl import SysctlSource
    from ..backends.host_os import Context
    from ..nic.models import Nic

SYNC_TIMEOUT = 300
DROP_TIMEOUT = 60


def session_addresses(ssh_connection: str | None) -> tuple[str, str] | None:
    """SSH_CONNECTION ('client port server port') -> (client address, this host's address), or None."""
    parts = (ssh_connection or "").split()
    return (parts[0], parts[2]) if len(parts) == 4 else None


class LinuxHost:
    name: OsName = "linux"
    fio_ioengine = "libaio"

    def __init__(self, runner: Runner | None = None):
        self.runner = runner or Runner()

    def nics(self, ssh_connection: str | None = None, *, include_loopback: bool = False) -> "list[Nic]":
        from ..backends.linux.ip import LinuxNetwork
        from ..backends.linux.nics import linux_nics

        session = session_addresses(ssh_connection)
        port = LinuxNetwork(self.runner).route_source_interface(session[0]) if session else None
        return linux_nics(self.runner, session_interface=port, include_loopback=include_loopback)

    def read_arc(self, ctx: "Context", host: str) -> "ArcSample":
        from ..bench.phases.arc import read_arc

        return read_arc(ctx, host)

    def port_bytes(self, ctx: "Context", host: str) -> dict[str, tuple[int, int]]:
        from ..backends.linux.link_stats import ip_link_bytes

        return ip_link_bytes(ctx, host)

    def drop_caches(self, ctx: "Context", host: str) -> bool | None:
        """Write dirty pages, then drop the page cache (the ARC is handled by bench/phases/cache_policy.py)."""
        ctx.run(host, ["sync"], timeout=SYNC_TIMEOUT, tool="sync")
        done = ctx.run(host, ["sysctl", "-q", "-w", "vm.drop_caches=3"], timeout=DROP_TIMEOUT, check=False,
                       tool="sysctl")
        return done.returncode == 0


class FreeBsdHost:
    """``sysctl``: this kernel's sysctl tree (default: freebsd-sysctl when installed, else the program).
    Given, every sysctl read of this host goes through it, whichever ``host`` name a benchmark uses for
    the NAS: FreeBSD is only ever the machine tengig runs on (system local, the CORE jail)."""

    name: OsName = "freebsd"
    fio_ioengine = "posixaio"

    def __init__(self, runner: Runner | None = None, sysctl: "SysctlSource | None" = None):
        from ..backends.freebsd.nics import default_sysctl

        self.runner = runner or Runner()
        self.sysctl = sysctl if sysctl is not None else default_sysctl(self.runner)

    def nics(self, ssh_connection: str | None = None, *, include_loopback: bool = False) -> "list[Nic]":
        from ..backends.freebsd.nics import freebsd_nics

        session = session_addresses(ssh_connection)
        return freebsd_nics(self.runner, sysctl=self.sysctl, session_address=session[1] if session else None,
                            include_loopback=include_loopback)

    def read_arc(self, ctx: "Context", host: str) -> "ArcSample":
        from ..backends.freebsd.arc import arc_sample

        return arc_sample(self.sysctl)

    def port_bytes(self, ctx: "Context", host: str) -> dict[str, tuple[int, int]]:
        from ..backends.freebsd.netstat import NETSTAT_BYTES_ARGV, parse_netstat_bytes

        return parse_netstat_bytes(ctx.run(host, list(NETSTAT_BYTES_ARGV), timeout=COUNTER_TIMEOUT,
                                           record=False).stdout)

    def drop_caches(self, ctx: "Context", host: str) -> bool | None:
        return None  # see the module's docstring: no page cache in a ZFS read's path on FreeBSD


def os_name_of(system: str) -> OsName | None:
    """platform.system()'s answer -> the OS tengig knows how to measure, or None."""
    return {"Linux": "linux", "FreeBSD": "freebsd"}.get(system)


def host_os(system: str | None = None, *, runner: Runner | None = None,
            sysctl: "SysctlSource | None" = None) -> HostOs:
    """The HostOs of a machine that says it is ``system`` (platform.system()'s words; default: this one).
    ``sysctl`` replaces a FreeBSD machine's sysctl tree (recorded output in tests). Anything but Linux and
    FreeBSD is refused: tengig measures NAS pools on those two only."""
    from ..errors import ValidationError

    said = system if system is not None else platform.system()
    name = os_name_of(said)
    if name == "freebsd":
        return FreeBsdHost(runner, sysctl)
    if name == "linux":
        return LinuxHost(runner)
    raise ValidationError.one("system", f"this machine is {said or 'an unknown OS'}: tengig measures NASes on "
                              "Linux (TrueNAS SCALE) and FreeBSD (TrueNAS CORE) only")
