"""tengig on a machine that says it is FreeBSD (TrueNAS CORE's jail) takes FreeBSD's code paths, end to end:
`tengig.nic.query` reads the ports with `ifconfig -a -v` and the device tree through the freebsd-sysctl seam,
and the pool benchmark reads the ARC through the same seam, runs fio with posixaio and drops no Linux cache.

No FreeBSD runs here. The machine is recorded FreeBSD output (tests/fixtures/freebsd/, each file naming its
source): a host whose programs answer as the recording says, and a sysctl tree read from a recorded `sysctl`
text through the seam's recorded implementation (backends.freebsd.sysctl.RecordedSysctl; on FreeBSD the same
code reads freebsd-sysctl's LibrarySysctl). Any Linux-only step (ip, ethtool, /proc, /sys, vm.drop_caches)
fails the test. fio itself is real, run on this machine in a scratch directory (posixaio exists on Linux too);
the scratch dataset is a directory stand-in, because no ZFS here is FreeBSD's.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tengig.backends.freebsd import RecordedSysctl
from tengig.backends.scratch import PoolSpace, ScratchInfo
from tengig.bench.context import BenchContext
from tengig.bench.phases.pool import PoolBenchRequest, run_pool_bench
from tengig.errors import ValidationError
from tengig.runner import Completed, Runner
from tengig.systems.host_os import FreeBsdHost, LinuxHost, host_os
from tengig.systems.local import LocalFacts
from tengig.systems.local_bench import LocalBenchSystem
from tengig.systems.seams import Seams
from tengig.units import MiB

from .test_freebsd_facts import recorded

LINUX_ONLY = ("ip", "ethtool", "cat", "grep", "sync")  # cat/grep: /proc arcstats, zfs-fuse kstat, /sys
FREEBSD_ARC = "arcstats-openzfs22-freebsd14.txt"


class RecordedFreeBsd:
    """A FreeBSD machine's programs for tengig's Runner: `ifconfig -a -v` prints the recording, `netstat -i -b -n
    -W` the next of ``netstat`` (recorded snapshots, one per call), `dmesg` is refused (as in a jail), fio and rm
    run for real; a Linux-only program is a test failure."""

    def __init__(self, ifconfig: str, netstat: list[str] | None = None):
        self.ifconfig, self.netstat, self.argv, self.real = ifconfig, list(netstat or []), [], Runner()

    def run(self, argv, *, timeout, check=True, **options):
        argv = list(argv)
        self.argv.append(argv)
        assert argv[0] not in LINUX_ONLY and "vm.drop_caches=3" not in argv, f"a Linux step ran on FreeBSD: {argv}"
        if argv == ["ifconfig", "-a", "-v"]:
            return Completed(tuple(argv), 0, self.ifconfig, "", 0.0)
        if argv == ["dmesg"]:
            return Completed(tuple(argv), 1, "", "dmesg: sysctl kern.msgbuf: Operation not permitted", 0.0)
        if argv == ["netstat", "-i", "-b", "-n", "-W"] and self.netstat:
            return Completed(tuple(argv), 0, self.netstat.pop(0), "", 0.0)
        assert argv[0] in ("fio", "rm"), f"not a program this test expected on FreeBSD: {argv}"
        return self.real.run(argv, timeout=timeout, check=check, **options)


class CountedSysctl(RecordedSysctl):
    """The seam's recorded implementation, counting what it is asked."""

    def __init__(self, text: str):
        super().__init__(text)
        self.asked: list[str] = []

    def values(self, prefix):
        self.asked.append(prefix)
        return super().values(prefix)


# -- which OS ------------------------------------------------------------------------------------------

def test_the_os_is_what_the_machine_says_it_is():
    sysctl = RecordedSysctl("")
    freebsd = host_os("FreeBSD", runner=RecordedFreeBsd(""), sysctl=sysctl)
    assert isinstance(freebsd, FreeBsdHost) and freebsd.sysctl is sysctl and freebsd.fio_ioengine == "posixaio"
    assert isinstance(host_os("Linux"), LinuxHost) and host_os("Linux").fio_ioengine == "libaio"
    with pytest.raises(ValidationError) as err:
        host_os("Darwin")
    assert "Darwin" in err.value.errors[0][1] and "FreeBSD" in err.value.errors[0][1]
    # system local's facts say it: the CORE jail is FreeBSD without middlewared, CORE itself truenas-core
    for flavour in ("freebsd", "truenas-core"):
        assert LocalFacts(flavour=flavour, reason="recorded").system == "FreeBSD"
    assert LocalFacts(flavour="truenas-scale", reason="recorded").system == "Linux"


# -- tengig.nic.query ------------------------------------------------------------------------------------

def test_nic_query_on_freebsd_reads_ifconfig_and_the_device_tree_through_the_seam(api_with, monkeypatch):
    machine = RecordedFreeBsd(recorded("ifconfig-a-em0-lo0-handbook.txt"))
    tree = CountedSysctl(recorded("sysctl-dev-em-0-handbook-pciconf.txt"))
    api = api_with(Seams(host_os=lambda: host_os("FreeBSD", runner=machine, sysctl=tree)))
    monkeypatch.setenv("SSH_CONNECTION", "192.168.1.50 50022 192.168.1.19 22")  # a session to em0's address
    nics = api.call("tengig.nic.query", {"system": "local"})
    assert [n["name"] for n in nics] == ["em0"]  # lo0 is not a port
    em0 = nics[0]
    # kind, driver, slot and card rest on the constructed device tree (the fixture's header says how it was made)
    assert (em0["kind"], em0["driver"], em0["pci_slot"], em0["card"]) == ("physical", "em", "0000:00:19.0", "0000:00:19")
    assert (em0["link"], em0["speed_bps"], em0["duplex"], em0["mtu"]) == ("up", 1_000_000_000, "full", 1500)
    assert em0["addresses"] == ["192.168.1.19/24"] and em0["mac"] == "00:1f:16:0f:27:5a"
    assert em0["carries_session"] is True
    assert em0["link_flaps"] is None  # the jail may not read the kernel's message buffer: unknown, not 0
    assert machine.argv == [["ifconfig", "-a", "-v"], ["dmesg"]]  # nothing else ran: no ip, no ethtool
    assert tree.asked == ["dev.em.0.%driver", "dev.em.0.%location"]  # lo0 is skipped before its tree is read


def test_nic_query_with_a_session_from_elsewhere_marks_no_port(api_with, monkeypatch):
    machine = RecordedFreeBsd(recorded("ifconfig-a-em0-lo0-handbook.txt"))
    api = api_with(Seams(host_os=lambda: host_os("FreeBSD", runner=machine,
                                                 sysctl=RecordedSysctl(recorded("sysctl-dev-em-0-handbook-pciconf.txt")))))
    monkeypatch.setenv("SSH_CONNECTION", "10.9.9.9 50022 10.9.9.1 22")
    [em0] = api.call("tengig.nic.query", {"system": "local"})
    assert em0["carries_session"] is False


# -- the pool benchmark ------------------------------------------------------------------------------------

class DirectoryScratch:
    """ScratchStorage over a directory (a stand-in: the subject is the OS's steps, not ZFS): one scratch
    directory per run, primarycache switches recorded, removed on destroy."""

    def __init__(self, root: Path):
        self.root, self.primarycache, self.made = root, [], []

    def find_scratch(self, pool):
        return []

    def space(self, pool):
        return PoolSpace(used=0, available=64 * 1024 * MiB)

    def create_scratch(self, pool, tag):
        path = self.root / f"tengig-scratch-{tag}"
        path.mkdir()
        self.made.append(path)
        return ScratchInfo(name=f"{pool}/tengig-scratch-{tag}", mountpoint=str(path), recordsize=MiB,
                           compression="off", atime="off")

    def set_primarycache(self, dataset, value):
        self.primarycache.append(value)

    def compressratio(self, dataset):
        return 1.0

    def dataset_properties(self, dataset):
        return {}  # a directory has none

    def destroy(self, dataset):
        shutil.rmtree(self.root / dataset.split("/", 1)[1], ignore_errors=True)


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (make setup installs it)")
def test_pool_bench_on_freebsd_reads_the_arc_through_the_seam_with_posixaio_and_no_cache_drop(tmp_path):
    machine = RecordedFreeBsd("")
    arcstats = CountedSysctl(recorded(FREEBSD_ARC))
    system = LocalBenchSystem(LocalFacts(flavour="freebsd", reason="recorded: the CORE jail", pools=("tank",)),
                              "tank", runner=machine, sysctl=arcstats)
    assert isinstance(system.os, FreeBsdHost)
    storage = DirectoryScratch(tmp_path)
    result = run_pool_bench(BenchContext(system.hosts), storage, system.nas,
                            PoolBenchRequest(pool="tank", preset="quick", repeats=1, working_set=64 * MiB),
                            host_os=system.os)
    # the ARC, through the seam: its size from the recorded c_max, and counted around each of the two reads
    assert (result.arc_max_bytes, result.arc_source) == (3176624128, "sysctl kstat.zfs.misc.arcstats")
    reads = [p for p in result.phases if p.direction == "read"]
    assert len(reads) == 2 and len(arcstats.asked) == 1 + 2 * len(reads)
    assert set(arcstats.asked) == {"kstat.zfs.misc.arcstats"}
    # the recorded counters stand still: no hit and no miss, and no Linux cache said to be dropped
    assert all((p.arc_hits, p.arc_misses, p.page_cache_dropped) == (0, 0, None) for p in reads)
    fio = [a for a in machine.argv if a[0] == "fio"]
    assert len(fio) == 5 and all("--ioengine=posixaio" in a for a in fio)  # 2 writes, 2 reads, the layout
    assert {a[0] for a in machine.argv} == {"fio", "rm"}
    assert storage.primarycache == ["metadata", "all", "metadata"] and not any(p.exists() for p in storage.made)


# -- the jail's pool: the dataset delegated to it ---------------------------------------------------------

# `zfs get -H -o name,value,source jailed` inside a jail that iocage gave tank/iocage/jails/tengig/data
# (jail_zfs=1): CONSTRUCTED in the format zfs(8) documents for -H (no header, one tab between fields); the
# jail sees the delegated dataset, its children and its ancestors. Only the dataset the property is set on
# (source "local") is delegated; a child inherits it.
JAIL_ZFS_GET_JAILED = (
    "tank\toff\tdefault\ntank/iocage\toff\tdefault\ntank/iocage/jails\toff\tdefault\n"
    "tank/iocage/jails/tengig\toff\tdefault\ntank/iocage/jails/tengig/data\ton\tlocal\n"
    "tank/iocage/jails/tengig/data/media\ton\tinherited from tank/iocage/jails/tengig/data\n")
DELEGATED = "tank/iocage/jails/tengig/data"


class JailZfs:
    """The zfs and zpool programs inside the jail: answers as above, records every argv."""

    def __init__(self):
        self.argv = []

    def run(self, argv, *, timeout, check=True, **options):
        argv = list(argv)
        self.argv.append(argv)
        if argv == ["zpool", "list", "-H", "-o", "name"]:
            return Completed(tuple(argv), 0, "tank\n", "", 0.0)
        if argv == ["zfs", "get", "-H", "-o", "name,value,source", "jailed"]:
            return Completed(tuple(argv), 0, JAIL_ZFS_GET_JAILED, "", 0.0)
        if argv[:2] == ["zfs", "create"]:
            return Completed(tuple(argv), 0, "", "", 0.0)
        if argv[:2] == ["zfs", "get"] and argv[-1].startswith(f"{DELEGATED}/tengig-scratch-"):
            return Completed(tuple(argv), 0, f"/mnt/tengig/{argv[-1].rsplit('/', 1)[1]}\n1048576\noff\noff\n", "", 0.0)
        raise AssertionError(f"not a program this test expected in the jail: {argv}")


def test_in_a_jail_the_scratch_dataset_goes_under_the_dataset_delegated_to_it():
    from tengig.systems.local import this_machine

    programs = JailZfs()
    facts = this_machine(programs, system="FreeBSD", sysctl=RecordedSysctl("security.jail.jailed: 1\n"))
    assert facts.flavour == "freebsd" and facts.pools == ("tank",) and facts.scratch_parents == (DELEGATED,)
    assert f"datasets delegated to it: {DELEGATED}" in facts.describe()
    system = LocalBenchSystem(facts, "tank", runner=programs, sysctl=RecordedSysctl(recorded(FREEBSD_ARC)))
    info = system.storage(BenchContext(system.hosts)).create_scratch("tank", "1795257770-42")
    assert info.name == f"{DELEGATED}/tengig-scratch-1795257770-42"
    assert info.mountpoint == "/mnt/tengig/tengig-scratch-1795257770-42"
    create = next(a for a in programs.argv if a[:2] == ["zfs", "create"])
    assert create[-1] == info.name and "compression=off" in create


def test_outside_a_jail_the_jailed_property_is_not_asked():
    """On a jail host the property marks other jails' datasets: tengig there makes its scratch at the root."""
    from tengig.systems.local import this_machine

    programs = JailZfs()
    facts = this_machine(programs, system="FreeBSD", sysctl=RecordedSysctl("security.jail.jailed: 0\n"))
    assert facts.scratch_parents == () and facts.scratch_parent("tank") is None
    assert programs.argv == [["zpool", "list", "-H", "-o", "name"]]


# -- a LAGG's member counters (tengig.lagg.verify with desktops that join) -------------------------------------

NETSTAT_LAGG = ("netstat-ibnW-lagg0-lacp-before-constructed.txt", "netstat-ibnW-lagg0-lacp-after-constructed.txt")


def test_lagg_member_counters_on_freebsd_come_from_netstat_not_iproute2():
    """The Handbook's LACP machine (lagg0 over fxp0 and fxp1): verify's member check and the counters read
    around a test come from `netstat -i -b -n -W` (constructed from netstat's source: the fixtures' headers say
    how); `ip` would fail the test (RecordedFreeBsd)."""
    from tengig.lagg import plan_lagg
    from tengig.lagg.joined import check_members, members_window

    from ..lagg.layouts import nic

    machine = RecordedFreeBsd("", netstat=[recorded(NETSTAT_LAGG[0])] + [recorded(n) for n in NETSTAT_LAGG])
    system = LocalBenchSystem(LocalFacts(flavour="freebsd", reason="recorded: the CORE jail", pools=("tank",)),
                              "tank", runner=machine, sysctl=RecordedSysctl(""))
    plan = plan_lagg({"nics": [nic("fxp0", "0000:02:00", speed=10**9, driver="fxp"),
                               nic("fxp1", "0000:03:00", speed=10**9, driver="fxp")],
                      "platform": "freebsd", "topology": "lacp-switch", "goal": "aggregate-many-clients",
                      "options": {"address": "10.0.0.3/24"}})
    ctx = BenchContext(system.hosts)
    assert check_members(ctx, plan, system.nas, system.os.port_bytes) is None  # lagg0 is a port: a real lagg
    windows = []
    with members_window(ctx, system.os.port_bytes, system.nas, ["fxp0", "fxp1"], "read", 1, windows):
        pass  # the test itself: between the two snapshots
    [window] = windows
    moved = {m.name: (m.rx_bytes, m.tx_bytes) for m in window.members}
    assert moved == {"fxp0": (396, 198), "fxp1": (26924832, 1178951296)}  # fxp1 carried the flow the NAS sent
    assert machine.argv == [["netstat", "-i", "-b", "-n", "-W"]] * 3
