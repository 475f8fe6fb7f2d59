"""FreeBSD ARC and NIC facts, parsed from recorded FreeBSD output (tests/fixtures/freebsd/, each file
names where it came from) through the sysctl seam."""
from __future__ import annotations

import errno
import sys
from pathlib import Path

import pytest

from tengig.backends.freebsd import (
    ARCSTATS, LibrarySysctl, ProgramSysctl, RecordedSysctl, arc_sample, arc_stats, arcstats_counters,
    nics_from_ifconfig, parse_ifconfig, parse_sysctl_text,
)
from tengig.backends.freebsd.arc import arcstats_from_text
from tengig.backends.freebsd.ifconfig import parse_media
from tengig.backends.freebsd.kernel_log import count_link_downs, parse_link_events
from tengig.backends.freebsd.nics import default_sysctl, freebsd_nics, pci_slot_of_location
from tengig.bench.phases.arc import ArcSample
from tengig.errors import TengigError, ToolOutputError
from tengig.runner import Completed
from tengig.systems.host_os import FreeBsdHost

FIXTURES = Path(__file__).parent.parent / "fixtures" / "freebsd"
NO_DEVICE_TREE = RecordedSysctl("")


def recorded(name: str) -> str:
    """A fixture's recorded text: its '# ' header (the source) dropped, the output as it was."""
    lines = (FIXTURES / name).read_text().splitlines()
    while lines and lines[0].startswith("# "):
        lines.pop(0)
    assert lines, f"{name} has no recorded output"
    return "\n".join(lines) + "\n"


def one_nic(name: str, sysctl=NO_DEVICE_TREE, log: str = ""):
    nics = nics_from_ifconfig(recorded(name), sysctl, log)
    assert len(nics) == 1, [n.name for n in nics]
    return nics[0]


def test_every_fixture_names_its_source():
    for path in sorted(FIXTURES.glob("*.txt")):  # README.md says how they are kept
        header = [line for line in path.read_text().splitlines() if line.startswith("# ")]
        assert any("Source:" in line for line in header), f"{path.name} does not say where it came from"


# -- the seam ----------------------------------------------------------------------------------------

def test_sysctl_text_keeps_name_value_lines_only():
    values = parse_sysctl_text(recorded("sysctl-a-arc-truncated-freebsd11.txt"))
    assert values["vfs.zfs.arc_max"] == 4294967296
    assert values["kern.supported_archs"] == "amd64 i386"
    assert not any("arcmsr" in name for name in values), "a kern.conftxt continuation line is not a sysctl"
    dev = parse_sysctl_text(recorded("sysctl-dev-ix-1-x550t2.txt"))
    assert dev["dev.ix.1.%location"] == "slot=0 function=1 dbsf=pci0:24:0:1"  # the value keeps its colons
    assert dev["dev.ix.1.%desc"] == "Intel(R) X550-T2" and dev["dev.ix.1.%domain"] == 0


def test_recorded_sysctl_values_are_the_node_and_what_is_under_it():
    source = RecordedSysctl(recorded("sysctl-dev-ix-1-x550t2.txt"))
    assert source.values("dev.ix.1.%driver") == {"dev.ix.1.%driver": "ix"}
    assert set(source.values("dev.ix.1.mac_stats")) == {"dev.ix.1.mac_stats.tx_frames_1024_1522",
                                                        "dev.ix.1.mac_stats.tx_frames_512_1023"}
    assert len(source.values("dev.ix.1")) == 14
    assert source.values("dev.ix.10") == {} and source.values("dev.ix") == source.values("dev.ix.1")


def test_program_sysctl_runs_sysctl_and_treats_an_unknown_name_as_absent():
    text = recorded("sysctl-dev-ix-1-x550t2.txt")
    calls = []

    def run(argv):
        calls.append(argv)
        return (0, text) if argv[1].startswith("dev.ix.1") else (1, "")

    source = ProgramSysctl(run)
    assert source.values("dev.ix.1.%location") == {"dev.ix.1.%location": "slot=0 function=1 dbsf=pci0:24:0:1"}
    assert source.values("dev.ix.7.%location") == {}
    assert calls == [["sysctl", "dev.ix.1.%location"], ["sysctl", "dev.ix.7.%location"]]


class FakeSysctl:
    """freebsd_sysctl.Sysctl's surface as version 0.0.7 has it (name, oid, value, children: every leaf
    under a node), over a {name: value} tree; an unknown name resolves to an all-zero OID."""

    def __init__(self, name, tree=None):
        self.name, self._tree = name, tree if tree is not None else FakeSysctl.tree
        known = name in self._tree or any(k.startswith(name + ".") for k in self._tree)
        self.oid = [1, 2, 3] if known else [0] * 24

    @property
    def value(self):
        return self._tree[self.name]

    @property
    def children(self):
        for key in self._tree:
            if key.startswith(self.name + "."):
                yield FakeSysctl(key, self._tree)


def test_library_sysctl_walks_children_and_drops_what_is_not_a_value():
    FakeSysctl.tree = {"dev.ix.1.%location": "slot=0 function=1 dbsf=pci0:24:0:1", "dev.ix.1.%domain": 0,
                       "dev.ix.1.opaque": b"\x00\x01", "dev.ix.1.array": [1, 2], "dev.ix.10.%driver": "ix"}
    source = LibrarySysctl(FakeSysctl)
    assert source.values("dev.ix.1") == {"dev.ix.1.%location": "slot=0 function=1 dbsf=pci0:24:0:1",
                                         "dev.ix.1.%domain": 0}
    assert source.values("dev.ix.1.%location") == {"dev.ix.1.%location": "slot=0 function=1 dbsf=pci0:24:0:1"}
    assert source.values("dev.mlx.0") == {}


@pytest.mark.skipif(sys.platform.startswith("freebsd"), reason="the refusal is for other systems")
def test_library_sysctl_refuses_off_freebsd_without_importing_the_package():
    with pytest.raises(TengigError) as err:
        LibrarySysctl()
    assert err.value.errno == errno.ENOTSUP and "only on FreeBSD" in err.value.message
    assert "freebsd_sysctl" not in sys.modules


# -- ARC ---------------------------------------------------------------------------------------------

def test_openzfs_arcstats_freebsd14():
    source = RecordedSysctl(recorded("arcstats-openzfs22-freebsd14.txt"))
    stats = arc_stats(source)
    assert (stats.hits, stats.misses, stats.c_max, stats.size) == (8019094, 80548, 3176624128, 1472594864)
    assert (stats.c_min, stats.c) == (132823936, 1520850909)
    assert arc_sample(source) == ArcSample(hits=8019094, misses=80548, c_max=3176624128,
                                           source="sysctl kstat.zfs.misc.arcstats",
                                           data_hits=6040389 + 3407 - 20427, data_misses=61775 + 11565)


def test_legacy_freebsd_arcstats_with_other_key_names():
    text = recorded("arcstats-legacy-freebsd10.txt")
    stats = arc_stats(RecordedSysctl(text))
    assert (stats.hits, stats.misses, stats.c_max, stats.size) == (63068289, 9306804, 1572864000, 1394856056)
    assert (stats.c_min, stats.c) == (196608000, 1470553736)
    legacy = arcstats_from_text(text)
    openzfs = arcstats_from_text(recorded("arcstats-openzfs22-freebsd14.txt"))
    assert "recycle_miss" in legacy and "p" in legacy and "iohits" not in legacy
    assert "iohits" in openzfs and "pd" in openzfs and "p" not in openzfs and "recycle_miss" not in openzfs


def test_truncated_arcstats_names_what_is_missing():
    source = RecordedSysctl(recorded("sysctl-a-arc-truncated-freebsd11.txt"))
    assert arcstats_counters(source.values(ARCSTATS))["arc_meta_used"] == 26997506960
    with pytest.raises(ToolOutputError, match=r"kstat\.zfs\.misc\.arcstats has no hits, misses, c_max, size: read 10"):
        arc_stats(source)
    with pytest.raises(ToolOutputError, match=r"has no hits, misses, c_max:"):
        arc_sample(source)


def test_no_arcstats_at_all():
    with pytest.raises(ToolOutputError, match=r"no values at all \(is ZFS loaded\?\)"):
        arc_stats(RecordedSysctl(recorded("sysctl-dev-ix-1-x550t2.txt")))


def test_vfs_tunables_are_not_arcstats_counters():
    text = recorded("arcstats-openzfs22-freebsd14.txt")
    assert len(arcstats_from_text(text)) == 148
    # vfs.zfs.* tunables are not arcstats counters, whatever their last word
    assert "arc_max" not in arcstats_from_text(recorded("sysctl-a-arc-truncated-freebsd11.txt"))


class SysctlOnlyHost:
    """A FreeBSD NAS's programs: no /proc arcstats, no zfs-fuse kstat mount; `sysctl NODE` prints the
    recorded lines under NODE, as sysctl(8) does."""

    def __init__(self, text: str):
        self.source, self.argv = RecordedSysctl(text), []

    def run(self, argv, *, timeout, check=True, **kwargs):
        self.argv.append(list(argv))
        if argv[0] != "sysctl":
            return Completed(tuple(argv), 1, "", "No such file or directory", 0.0)
        values = self.source.values(argv[1])
        return Completed(tuple(argv), 0 if values else 1, "".join(f"{k}: {v}\n" for k, v in values.items()), "", 0.0)


def test_a_freebsd_nas_without_the_library_reads_the_arc_with_the_sysctl_program():
    host = SysctlOnlyHost(recorded("arcstats-legacy-freebsd10.txt"))
    nas = FreeBsdHost(host)  # off FreeBSD (or without freebsd-sysctl): the program, through the runner
    sample = nas.read_arc(None, "nas")
    assert sample == ArcSample(hits=63068289, misses=9306804, c_max=1572864000, source="sysctl kstat.zfs.misc.arcstats",
                               data_hits=22417340, data_misses=75230)
    assert host.argv == [["sysctl", "kstat.zfs.misc.arcstats"]]


# -- NICs --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("media, speed, duplex", [
    ("Ethernet autoselect (10Gbase-Twinax <full-duplex,rxpause,txpause>)", 10_000_000_000, "full"),
    ("Ethernet autoselect (10Gbase-SR <full-duplex,rxpause,txpause>)", 10_000_000_000, "full"),
    ("Ethernet autoselect (1000baseT <full-duplex,rxpause,txpause>)", 1_000_000_000, "full"),
    ("Ethernet autoselect (1000baseT <full-duplex>)", 1_000_000_000, "full"),
    ("Ethernet autoselect", None, None),          # no active media: a lagg, or no carrier
    (None, None, None),                           # no media line at all
])
def test_media_lines_from_the_fixtures(media, speed, duplex):
    assert parse_media(media) == (speed, duplex)


def test_10g_twinax_port_truenas12():
    nic = one_nic("ifconfig-ix0-10gbase-twinax-truenas12.txt")
    assert (nic.name, nic.link, nic.speed_bps, nic.duplex, nic.mtu) == ("ix0", "up", 10_000_000_000, "full", 1500)
    assert nic.mac == "90:1b:0e:0f:5d:8a" and nic.addresses == ["10.253.0.10/23"] and nic.driver == "ix"
    assert nic.link_flaps is None and nic.flap_events == []


def test_10g_port_that_negotiated_1g_and_its_supported_media_list():
    nic = one_nic("ifconfig-m-ix0-1000baset-x553-freebsd13.txt")
    # `ifconfig -m` lists "media 10Gbase-T" under supported media: that is not the negotiated speed
    assert (nic.speed_bps, nic.duplex, nic.link) == (1_000_000_000, "full", "up")
    assert nic.addresses == ["2001:558:6045:109:892f:2df3:15e3:3184/128", "73.189.219.4/23"]  # fe80:: left out
    assert nic.mac == "00:0d:b9:48:92:48"


def test_1g_port_freebsd15_flags_with_lower_up():
    entry, = parse_ifconfig(recorded("ifconfig-ix0-1000baset-freebsd15.txt"))
    assert "LOWER_UP" in entry.flags and entry.status == "active"
    nic = one_nic("ifconfig-ix0-1000baset-freebsd15.txt")
    assert (nic.speed_bps, nic.duplex, nic.addresses) == (1_000_000_000, "full", ["10.120.54.69/24"])


def test_port_without_carrier_has_no_speed_not_zero():
    nic = one_nic("ifconfig-v-ix0-no-carrier-x553-opnsense.txt")
    assert nic.link == "down" and nic.speed_bps is None and nic.duplex is None
    assert nic.mtu == 1500 and nic.mac == "90:ec:77:29:03:26" and nic.addresses == []


def test_card_and_driver_from_the_device_tree():
    dev = RecordedSysctl(recorded("sysctl-dev-ix-1-x550t2.txt"))
    nic = one_nic("ifconfig-ix1-10gbase-sr-opnsense18.txt", dev)
    assert (nic.kind, nic.driver, nic.pci_slot, nic.card) == ("physical", "ix", "0000:18:00.1", "0000:18:00")
    assert (nic.speed_bps, nic.duplex, nic.link) == (10_000_000_000, "full", "up")
    assert nic.addresses == ["10.12.12.1/24"]
    # without the device tree nothing is claimed about the card
    bare = one_nic("ifconfig-ix1-10gbase-sr-opnsense18.txt")
    assert (bare.pci_slot, bare.card, bare.kind, bare.driver) == (None, None, "virtual", "ix")


@pytest.mark.parametrize("location, slot", [
    ("slot=0 function=1 dbsf=pci0:24:0:1", "0000:18:00.1"),   # the recorded X550-T2 port (decimal bus 24)
    ("slot=0 function=1", None),                              # no bus: no slot rather than a guess
    ("", None),
    (None, None),
])
def test_pci_slot_of_location(location, slot):
    assert pci_slot_of_location(location) == slot


def test_lacp_lagg():
    entry, = parse_ifconfig(recorded("ifconfig-lagg0-lacp-handbook.txt"))
    assert (entry.laggproto, entry.laggports) == ("lacp", ["fxp1", "fxp0"])
    nic = one_nic("ifconfig-lagg0-lacp-handbook.txt")
    assert (nic.kind, nic.driver, nic.link, nic.speed_bps, nic.duplex) == ("bond", "lagg", "up", None, None)
    assert nic.addresses == ["10.0.0.3/24"] and nic.mac == "00:05:5d:71:8d:b8"


def test_failover_lagg():
    entry, = parse_ifconfig(recorded("ifconfig-lagg0-failover-handbook.txt"))
    assert (entry.laggproto, entry.laggports, entry.groups) == ("failover", ["re0", "wlan0"], ["lagg"])
    assert one_nic("ifconfig-lagg0-failover-handbook.txt").kind == "bond"


def test_link_events_from_syslog():
    log = recorded("messages-igb-link-flaps-opnsense.txt")
    igb1 = parse_link_events(log, "igb1")
    assert len(igb1) == 11 and sum(e.state == "down" for e in igb1) == 6
    assert (igb1[0].at, igb1[0].state, igb1[0].detail) == ("Jul 20 21:12:13", "down",
                                                          "igb1: link state changed to DOWN")
    assert igb1[-1].at == "Jul 21 08:04:24"
    assert len(parse_link_events(log, "igb2")) == 11 and parse_link_events(log, "igb") == []
    # the log starts mid-way: how often the link went down since boot is not known
    assert count_link_downs(log, "igb1") is None


def test_flaps_are_counted_only_from_a_boot_line():
    # Constructed (no recorded log with a boot line and link events was found): the boot line and the
    # event line are FreeBSD's wording; one line from an earlier boot must not count.
    log = ("igb1: link state changed to DOWN\n---<<BOOT>>---\n"
           "Copyright (c) 1992-2023 The FreeBSD Project.\n"
           "igb1: link state changed to DOWN\nigb1: link state changed to UP\n")
    assert count_link_downs(log, "igb1") == 1
    assert [e.state for e in parse_link_events(log, "igb1")] == ["down", "up"]
    assert count_link_downs(log, "ix0") == 0


class RecordedHost:
    """A Runner that answers with recorded output: `ifconfig -a -v` and `sysctl NAME` as recorded,
    `dmesg` not permitted (a jail, say)."""

    def __init__(self, ifconfig: str, sysctl: str):
        self.ifconfig, self.sysctl, self.argv = ifconfig, RecordedSysctl(sysctl), []

    def run(self, argv, *, timeout, check=True, **kwargs):
        self.argv.append(list(argv))
        assert timeout > 0
        if argv == ["ifconfig", "-a", "-v"]:
            return Completed(tuple(argv), 0, self.ifconfig, "", 0.0)
        if argv[0] == "sysctl" and (values := self.sysctl.values(argv[1])):
            return Completed(tuple(argv), 0, "".join(f"{k}: {v}\n" for k, v in values.items()), "", 0.0)
        if argv[0] == "sysctl":
            return Completed(tuple(argv), 1, "", f"sysctl: unknown oid '{argv[1]}'", 0.0)
        return Completed(tuple(argv), 1, "", "dmesg: sysctl kern.msgbuf: Operation not permitted", 0.0)


def test_freebsd_nics_runs_ifconfig_and_reads_the_device_tree_with_the_sysctl_program():
    host = RecordedHost(recorded("ifconfig-ix1-10gbase-sr-opnsense18.txt"), recorded("sysctl-dev-ix-1-x550t2.txt"))
    nic, = freebsd_nics(host, session_address="10.12.12.1")
    assert (nic.pci_slot, nic.card, nic.kind, nic.carries_session) == ("0000:18:00.1", "0000:18:00", "physical", True)
    assert nic.link_flaps is None and nic.flap_events == []  # dmesg refused: unknown, not zero
    assert ["ifconfig", "-a", "-v"] in host.argv and ["dmesg"] in host.argv
    assert ["sysctl", "dev.ix.1.%location"] in host.argv and ["sysctl", "dev.ix.1.%driver"] in host.argv


def test_default_sysctl_prefers_the_library_on_freebsd(monkeypatch):
    host = RecordedHost("", recorded("sysctl-dev-ix-1-x550t2.txt"))
    monkeypatch.setattr(sys, "platform", "freebsd14")
    library = RecordedSysctl("")
    assert default_sysctl(host, library=lambda: library) is library

    def not_installed():
        raise TengigError("the freebsd-sysctl package is not installed")

    fallback = default_sysctl(host, library=not_installed)
    assert fallback.values("dev.ix.1.%driver") == {"dev.ix.1.%driver": "ix"}
    monkeypatch.setattr(sys, "platform", "linux")
    assert isinstance(default_sysctl(host, library=lambda: library), ProgramSysctl)


# -- netstat -i -b: each port's byte counters ---------------------------------------------------------------

def test_netstat_bytes_reads_the_link_rows_of_a_recorded_freebsd_server():
    """One port's <Link#7> row and three address rows (igcollect's recording, with -d's Drop column): the
    address rows are an address's share, not the port's, and are not read."""
    from tengig.backends.freebsd import parse_netstat_bytes

    assert parse_netstat_bytes(recorded("netstat-nbd-I-one-port-igcollect.txt")) == {
        "inter": (19227525718, 17356471801)}


def test_netstat_bytes_counts_columns_from_the_right_and_names_a_missing_b():
    """A tunnel's <Link#N> row has an empty Address column (igcollect says so of its tunnels; netstat's
    process_ifa_addr pads it with spaces), and a port that is down has '*' after its name."""
    from tengig.backends.freebsd import parse_netstat_bytes
    from tengig.errors import ToolOutputError

    text = recorded("netstat-ibnW-lagg0-lacp-before-constructed.txt")
    header = text.splitlines()[0]
    text += "gif0*  1280 <Link#5>                                  10     0     0         1400        12     0         1680     0\n"
    counters = parse_netstat_bytes(text)
    assert counters["lagg0"] == (42347997589, 25775404185) and counters["fxp1"] == (20614377402, 12785220730)
    assert counters["gif0"] == (1400, 1680) and set(counters) == {"fxp0", "fxp1", "lo0", "lagg0", "gif0"}
    with pytest.raises(ToolOutputError, match="was -b given"):
        parse_netstat_bytes(header.replace(" Ibytes", "").replace(" Obytes", "") + "\n")
    with pytest.raises(ToolOutputError, match="no <Link#N> row"):
        parse_netstat_bytes(header + "\n")
