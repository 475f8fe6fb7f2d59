"""The properties that set how fast a dataset takes data (atime, compression, dedup, recordsize, sync where the pool
has it), read of the pool's scratch dataset and of the one SMB copied to, so the verdict can compare them:
`zfs get` on recorded output (tests/fixtures/environment: the lab's share dataset on zfs-fuse); TrueNAS's
pool.dataset.query: tests/truenas/test_storage_and_hosts.py."""
from pathlib import Path

import pytest

from tengig.backends.linux.zfs import ZfsCli, parse_speed_properties
from tengig.backends.scratch import SPEED_PROPERTIES
from tengig.errors import ToolOutputError
from tengig.runner import Completed


FIX = Path(__file__).resolve().parents[1] / "fixtures" / "environment"
ZFS_FUSE = (FIX / "zfs-get-zfs-fuse.txt").read_text()


def test_zfs_fuse_has_no_sync_property_and_the_rest_is_read():
    assert parse_speed_properties(ZFS_FUSE) == {"atime": "off", "compression": "off", "dedup": "off",
                                                "recordsize": "131072"}


def test_sync_is_read_where_the_pool_has_it():
    # pool version 28 and OpenZFS print sync among the rest (zfs get -Hp -o property,value all)
    got = parse_speed_properties(ZFS_FUSE.replace("logbias\tlatency\n", "logbias\tlatency\nsync\tdisabled\n"))
    assert got["sync"] == "disabled" and set(got) == set(SPEED_PROPERTIES)


class Recorded:
    """A CommandContext answering `zfs get` with recorded output."""

    def __init__(self, stdout: str, stderr: str = "", code: int = 0):
        self.done, self.argv = (stdout, stderr, code), []

    def run(self, host, argv, *, timeout, tool=None, record=True, check=True, env=None):
        self.argv.append(list(argv))
        return Completed(tuple(argv), self.done[2], self.done[0], self.done[1], 0.01)

    def uncancellable(self):
        return self


def test_zfs_cli_asks_for_all_properties_as_one_missing_name_would_fail_the_whole_get():
    ctx = Recorded(ZFS_FUSE)
    assert ZfsCli(ctx, "nas").dataset_properties("tgtank/smb")["recordsize"] == "131072"
    assert ctx.argv == [["zfs", "get", "-Hp", "-o", "property,value", "all", "tgtank/smb"]]


def test_a_dataset_zfs_cannot_open_is_an_error_naming_it():
    ctx = Recorded("", (FIX / "zfs-get-missing-dataset.txt").read_text(), 1)
    with pytest.raises(ToolOutputError, match="tgtank/nope.*dataset does not exist"):
        ZfsCli(ctx, "nas").dataset_properties("tgtank/nope")



def test_a_run_hands_both_datasets_and_the_write_back_to_the_verdict():
    """The lab at 10 Gb/s: the pool's SEQ1M write 195.9 MB/s, SMB's 255.8 MB/s to the share's scratch dataset
    with the same properties: the client's verdict names write-back, not the pool."""
    from tengig.bench.phases.pool import PoolBenchResult, PoolPhase
    from tengig.bench.phases.smb_results import SmbBenchResult, SmbDirection
    from tengig.bench.run.suite import ClientReport, judge_client
    from tengig.bench.stats import summarize
    from tengig.verdict.targets import find_target

    props = parse_speed_properties(ZFS_FUSE)

    def phase(direction, mb):
        return PoolPhase(test="SEQ1M Q8T1", key="seq1m-q8t1", direction=direction, bytes_per_s=summarize([mb * 1e6]),
                         iops=summarize([mb]), mean_latency_us=None, bytes_moved=[2**27])

    def smb(direction, mb, **kw):
        return SmbDirection(direction=direction, bytes_per_s=summarize([mb * 1e6]), bytes_per_run=2**26,
                            wire_bytes=[2**26], smbd_cpu_percent=None, **kw)

    pool = PoolBenchResult(pool="tgtank", dataset="tgtank/tengig-scratch-1", preset="quick", working_set_bytes=2**27,
                           arc_max_bytes=None, arc_source=None, recordsize_bytes=2**17, dataset_properties=props,
                           compressratio=1.0, phases=[phase("write", 195.9), phase("read", 420.0)])
    report = ClientReport(client="desk", smb=SmbBenchResult(
        client="desk", server="nas", file_size=2**26, session=None, dataset="tgtank/smb/tengig-scratch-2",
        dataset_properties=props, write=smb("write", 255.8),
        read=smb("read", 300.0, write_back="zpool iostat: no writes left after 3 s", arc_hit_ratio=0.01)))
    judge_client(find_target("hdd-15k-best"), pool, report, {})
    write = next(d for d in report.verdict.directions if d.direction == "write")
    assert write.bottleneck != "pool"
    assert ("The pool's scratch dataset tgtank/tengig-scratch-1 and the one SMB wrote to, tgtank/smb/tengig-scratch-2, "
            "are alike (atime off, compression off, dedup off, recordsize 128 KiB), so SMB's write was timed before the pool had "
            "it on disk") in report.verdict.summary
    assert "after the copies the NAS waited for the pool: zpool iostat: no writes left after 3 s" in report.verdict.summary


def test_unreadable_properties_are_a_gap_but_a_cancel_still_cancels():
    from tengig.backends.scratch import speed_properties
    from tengig.errors import Aborted

    class Failing:
        def __init__(self, exc):
            self.exc = exc

        def dataset_properties(self, dataset):
            raise self.exc

    assert speed_properties(Failing(ToolOutputError("zfs get failed")), "tank/x") == {}
    with pytest.raises(Aborted):
        speed_properties(Failing(Aborted("cancelled")), "tank/x")
