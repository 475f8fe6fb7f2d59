"""zpool iostat -v (zfs-fuse's, recorded on the lab) and -v -l (OpenZFS's documented format), and
/proc/diskstats (recorded on the lab around the same write): what the scaling phase reads per member."""
from pathlib import Path

import pytest

from tengig.bench.parse.diskstats_parse import parse_diskstats, window
from tengig.bench.parse.zpool_iostat_parse import parse_zpool_iostat
from tengig.errors import ToolOutputError


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MiB = 2**20


def test_zfs_fuse_reports_every_interval_with_its_two_members():
    reports = parse_zpool_iostat((FIXTURES / "zpool/iostat-v-zfs-fuse-two-members-writing.txt").read_text())
    assert len(reports) == 4  # the average since import, then 3 intervals
    third = reports[2]
    assert [r.name for r in third.rows] == ["tgtank", "loop1", "loop3"]
    assert [r.name for r in third.leaves] == ["loop1", "loop3"]
    assert third.leaves[0].write_bytes_per_s == pytest.approx(47.6 * MiB)
    assert third.leaves[1].write_ops == 453
    assert third.leaves[0].total_wait_write_ms is None  # zfs-fuse has no -l


def test_openzfs_latency_columns_and_nested_vdevs():
    (report,) = parse_zpool_iostat((FIXTURES / "zpool/iostat-vl-openzfs-documented.txt").read_text())
    assert [r.name for r in report.leaves] == ["sdb", "sdc", "nvme0n1"]  # mirror-0 groups them, logs is a title
    sdb, sdc, _ = report.leaves
    assert (sdb.total_wait_read_ms, sdc.total_wait_read_ms) == (6, 41)
    assert sdc.disk_wait_write_ms == 8
    assert report.leaves[2].total_wait_read_ms == pytest.approx(0.12)
    assert next(r for r in report.rows if r.name == "mirror-0").leaf is False


def test_no_report_is_an_error():
    with pytest.raises(ToolOutputError, match="no report"):
        parse_zpool_iostat((FIXTURES / "zpool/iostat-no-such-pool.txt").read_text())


def test_diskstats_window_shows_the_throttled_member():
    before = parse_diskstats((FIXTURES / "diskstats/two-members-before.txt").read_text())
    after = parse_diskstats((FIXTURES / "diskstats/two-members-after.txt").read_text())
    slow, fast = window(before["loop1"], after["loop1"], 2.6), window(before["loop3"], after["loop3"], 2.6)
    assert (slow.ios, fast.ios) == (1264, 1180)
    assert slow.wait_ms == pytest.approx(15509 / 1264)
    assert fast.wait_ms < 1 < 10 < slow.wait_ms
    assert slow.busy_percent == pytest.approx(1724 / 26)
