"""The environment fingerprint: pure parsers on recorded output (tests/fixtures/environment was
recorded on the lab machine: Debian 12, zfs-fuse, the lab's tg-nas namespace), and the probes on
this machine, including with every tool missing.

tests/fixtures/arcstats/openzfs.txt is a representative OpenZFS 2.1 /proc/spl/kstat/zfs/arcstats
excerpt (this machine runs zfs-fuse, which has no such file); arcstats/zfs-fuse/ was copied from
zfs-fuse's kstat mount (/zfs-kstat/zfs/arcstats, lab started with `-m 100`; re-recorded 2026-11-28 with the
data and metadata counters the benchmark's hit ratio reads)."""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tengig.backends.linux.arcstats import parse_arcstats, read_kstat_dir
from tengig.errors import ToolOutputError, ValidationError
from tengig.results.environment import (
    collect_environment,
    parse_ip_links,
    parse_os_release,
    parse_sysfs_grep,
    parse_tool_version,
    parse_zfs_get,
    parse_zfs_version,
    parse_zpool_layout,
)
from tengig.runner import Runner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ARC = FIXTURES / "arcstats"
ENV = FIXTURES / "environment"


def fixture(name: str) -> str:
    return (ENV / name).read_text()


def test_parse_arcstats_openzfs():
    stats = parse_arcstats((ARC / "openzfs.txt").read_text())
    assert stats["c_max"] == 8252659712
    assert stats["c_min"] == 515791232
    assert stats["size"] == 8124577912
    assert (stats["hits"], stats["misses"]) == (18305476, 1027193)
    assert stats["memory_available_bytes"] == -124780544  # type 3 (int64) can be negative
    assert "name" not in stats and "13" not in stats  # the two header lines are not values
    assert len(stats) == 72  # every line after the two headers


@pytest.mark.parametrize("text", ["", "name type data\n", "cat: /proc/spl/kstat/zfs/arcstats: No such file\n"])
def test_parse_arcstats_refuses_text_without_values(text):
    with pytest.raises(ToolOutputError):
        parse_arcstats(text)


def test_read_kstat_dir_zfs_fuse_layout():
    stats = read_kstat_dir(ARC / "zfs-fuse")
    assert stats["c_max"] == 104857600  # 100 MiB: zfs-fuse -m 100
    assert stats["c_min"] == 16777216
    assert set(stats) == {"c", "c_max", "c_min", "hits", "misses", "p", "size", "demand_data_hits", "demand_data_misses",
                          "prefetch_data_hits", "prefetch_data_misses", "demand_metadata_hits",
                          "demand_metadata_misses"}


def test_arc_size_from_either_layout_or_honestly_none(tmp_path):
    runner = Runner()
    openzfs = collect_environment(runner, proc_arcstats=ARC / "openzfs.txt", kstat_dir=tmp_path / "none")
    assert (openzfs.arc_size_bytes, openzfs.arc_source) == (8252659712, str(ARC / "openzfs.txt"))
    fuse = collect_environment(runner, proc_arcstats=tmp_path / "none", kstat_dir=ARC / "zfs-fuse")
    assert fuse.arc_size_bytes == 104857600 and fuse.arc_source == str(ARC / "zfs-fuse" / "c_max")
    neither = collect_environment(runner, proc_arcstats=tmp_path / "a", kstat_dir=tmp_path / "b")
    assert neither.arc_size_bytes is None and neither.arc_source is None
    assert str(tmp_path / "a") in neither.probe_errors["arc_size_bytes"]
    (tmp_path / "broken").write_text("13 1 0x01 0 0 0 0\nname type data\nhits 4 1\n")
    no_cmax = collect_environment(runner, proc_arcstats=tmp_path / "broken", kstat_dir=tmp_path / "b")
    assert no_cmax.arc_size_bytes is None and "c_max" in no_cmax.probe_errors["arc_size_bytes"]


@pytest.mark.parametrize(
    "tool, name, version",
    [("fio", "fio-version.txt", "fio-3.33"), ("iperf3", "iperf3-version.txt", "3.12"),
     ("smbd", "smbd-version.txt", "4.17.12-Debian"), ("smbclient", "smbd-version.txt", "4.17.12-Debian")],
)
def test_parse_tool_version(tool, name, version):
    assert parse_tool_version(tool, fixture(name)) == version


def test_parse_tool_version_unrecognised_is_none():
    assert parse_tool_version("fio", "bash: fio: command not found") is None
    assert parse_tool_version("iperf3", fixture("fio-version.txt")) is None


def test_parse_zfs_version():
    assert parse_zfs_version(fixture("zpool-upgrade-v-zfs-fuse.txt")) == "ZFS pool version 23"
    assert parse_zfs_version(fixture("zpool-upgrade-v-no-daemon.txt")) is None
    # `zfs version` on OpenZFS >= 0.8 prints the userland and the kernel module versions.
    assert parse_zfs_version("zfs-2.1.11-1\nzfs-kmod-2.1.11-1\n") == "zfs-2.1.11-1 (zfs-kmod-2.1.11-1)"


def test_parse_zfs_get_keeps_the_properties_that_matter():
    props = parse_zfs_get(fixture("zfs-get-zfs-fuse.txt") + "tengig:scratch\trun-7\n")
    assert props["recordsize"] == "131072"
    assert (props["compression"], props["atime"], props["compressratio"]) == ("off", "off", "1.00x")
    assert props["tengig:scratch"] == "run-7"
    assert "mountpoint" not in props and "creation" not in props
    assert parse_zfs_get(fixture("zfs-get-missing-dataset.txt")) == {}


def test_parse_ip_links():
    assert parse_ip_links(fixture("ip-link-lab-nas.json")) == [("eth-desk", 1500, "veth"), ("eth-lab", 1500, "veth")]
    assert ("eth0", 1400, None) in parse_ip_links(fixture("ip-link-vm.json"))
    with pytest.raises(ToolOutputError):
        parse_ip_links("Cannot open netns \"tg-nas\": No such file or directory")


def test_parse_sysfs_grep():
    lab = parse_sysfs_grep(fixture("sysfs-grep-lab-nas.txt"))
    assert lab == {"eth-desk": {"speed_bps": 10_000_000_000, "driver": None},
                   "eth-lab": {"speed_bps": 10_000_000_000, "driver": None}}
    vm = parse_sysfs_grep(fixture("sysfs-grep-vm.txt"))
    assert vm == {"eth0": {"speed_bps": None, "driver": "virtio_net"}}  # speed -1: unknown, not zero


def test_parse_os_release():
    assert parse_os_release(fixture("os-release-debian12.txt")) == "Debian GNU/Linux 12 (bookworm)"
    assert parse_os_release('NAME="FreeBSD"\nVERSION_ID="14.1"\n') == "FreeBSD 14.1"
    assert parse_os_release("") is None


def test_parse_zpool_layout():
    """The vdev tree in one line. The mirrors are written in `zpool status`'s layout by hand (no such pool here);
    the lab's pool is zfs-fuse's real answer (one file vdev)."""
    assert parse_zpool_layout(fixture("zpool-status-mirrors-written.txt")) == \
        "mirror-0 (sda, sdb), mirror-1 (sdc, sdd); logs: nvme0n1; cache: nvme1n1"
    assert parse_zpool_layout(fixture("zpool-status-zfs-fuse.txt")) == "/var/lib/tengig/lab/pool.img"
    assert parse_zpool_layout("cannot open 'nope': no such pool\n") is None


def test_truenas_version_only_where_truenas_keeps_it(tmp_path):
    version = tmp_path / "version"
    version.write_text("25.04.2.6\n")
    runner = Runner(extra_env={"PATH": str(tmp_path)})  # no tools: only files are read
    assert collect_environment(runner, truenas_version=version).truenas_version == "25.04.2.6"
    assert collect_environment(runner, truenas_version=tmp_path / "absent").truenas_version is None


def test_collect_environment_on_this_machine():
    found = collect_environment(Runner())
    assert found.tools["fio"] and found.tools["fio"].startswith("fio-")
    assert found.tools["iperf3"] and found.tools["iperf3"][0].isdigit()
    assert found.tools["smbd"] and found.tools["smbclient"]
    assert found.kernel == os.uname().release
    assert found.hostname == socket.gethostname()
    assert found.os
    assert found.nics and all(n.mtu and n.mtu >= 68 for n in found.nics)
    assert "lo" not in [n.name for n in found.nics]
    for probe in ("fio", "iperf3", "smbd", "smbclient", "kernel", "nics"):
        assert probe not in found.probe_errors


def test_collect_environment_with_every_tool_missing(tmp_path):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    found = collect_environment(Runner(extra_env={"PATH": str(empty)}), dataset="tank/bench",
                                proc_arcstats=ARC / "openzfs.txt", kstat_dir=tmp_path / "none")
    assert found.tools == {"fio": None, "iperf3": None, "smbd": None, "smbclient": None}
    assert (found.kernel, found.zfs_version, found.nics, found.dataset_properties) == (None, None, [], {})
    assert found.pool_layout is None
    for probe in ("fio", "iperf3", "smbd", "smbclient", "kernel", "zfs_version", "nics", "dataset_properties",
                  "pool_layout"):
        assert "not installed" in found.probe_errors[probe], probe
    assert found.arc_size_bytes == 8252659712  # files still read without any program
    assert found.os == parse_os_release(Path("/etc/os-release").read_text())


def test_collect_environment_unknown_dataset_is_an_error_not_empty_silence():
    found = collect_environment(Runner(), dataset="tengig-no-such-pool/bench")
    assert found.dataset_properties == {}
    assert found.probe_errors["dataset_properties"]


def test_collect_environment_refuses_a_bad_dataset_name():
    with pytest.raises(ValidationError) as exc:
        collect_environment(Runner(), dataset="tank; rm -rf /")
    assert exc.value.errors[0][0] == "dataset"
