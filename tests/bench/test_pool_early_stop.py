"""The pool's fio runs stop when they agree, by the rule the SMB copies stop by (bench/stats.settled), and
quick's sequential runs are short: each stops after the preset's seconds or at its file's size, and each read
reads what its write wrote. Pure: fio answers from a script of speeds, nothing runs and nothing is timed."""
import json

import pytest

from tengig.backends.arcstats import ArcSample
from tengig.backends.scratch import PoolSpace, ScratchInfo
from tengig.bench.context import BenchContext
from tengig.bench.phases.pool import PoolBenchRequest, fio_argv, run_pool_bench
from tengig.bench.phases.pool_presets import PRESETS, RND4K_Q32T1, SEQ1M_Q8T1
from tengig.errors import CommandFailed
from tengig.runner import Completed
from tengig.units import MiB

QUICK = PRESETS["quick"]


def _mb(values):
    """MB/s, whole (fio's runtime is whole milliseconds: a speed comes back within 0.1%)."""
    return [round(v / 1e6) for v in values]


def _option(argv, name):
    return next((a.split("=", 1)[1] for a in argv if a.startswith(f"--{name}=")), None)


def _fio_json(argv, bytes_per_s: float) -> str:
    """What fio prints for ``argv`` at ``bytes_per_s``: a capped sequential run moves what its seconds allow
    (never more than --size), a time-based one runs its seconds."""
    size, runtime = int(_option(argv, "size")), _option(argv, "runtime")
    seconds = (float(runtime[:-2]) / 1000 if runtime.endswith("ms") else float(runtime)) if runtime else None
    moved = size if seconds is None or "--time_based" in argv else min(size, int(bytes_per_s * seconds) // MiB * MiB)
    ms = round(1000 * moved / bytes_per_s)
    direction = "write" if "write" in _option(argv, "rw") else "read"
    io = {"io_bytes": moved, "runtime": ms, "iops": moved / 4096 / (ms / 1000), "clat_ns": {"mean": 1000.0}}
    return json.dumps({"fio version": "fio-3.33", "jobs": [{"jobname": _option(argv, "name"), "error": 0,
                                                           direction: io}]})


class ScriptedNas:
    """The NAS's programs: fio answers at the next speed of its test and direction's script (MB/s), the others
    succeed silently; every argv is kept."""

    def __init__(self, speeds: dict[str, list[float]]):
        self.speeds = {k: list(v) for k, v in speeds.items()}
        self.argv: list[list[str]] = []

    def run(self, host, argv, *, timeout, check=True, env=None, cancel=None):
        argv = list(argv)
        self.argv.append(argv)
        if argv[0] != "fio":
            return Completed(tuple(argv), 0, "", "", 0.0)
        name = self._name(argv)
        script = self.speeds.setdefault(name, [1000.0])
        return Completed(tuple(argv), 0, _fio_json(argv, 1e6 * (script.pop(0) if len(script) > 1 else script[0])),
                         "", 0.0)

    @staticmethod
    def _name(argv) -> str:
        """The fio job's name; "layout" for the random tests' file written before them."""
        random_file = "tengig-pool-random" in _option(argv, "filename")
        return "layout" if random_file and _option(argv, "rw") == "write" else _option(argv, "name")

    def fio(self, name: str) -> list[list[str]]:
        return [a for a in self.argv if a[0] == "fio" and self._name(a) == name]


class Storage:
    """A scratch dataset that takes primarycache (uncached writes) unless ``refuse``."""

    def __init__(self, refuse: bool = False):
        self.refuse = refuse

    def find_scratch(self, pool):
        return []

    def space(self, pool):
        return PoolSpace(used=0, available=1024 * 1024 * MiB)

    def create_scratch(self, pool, tag):
        return ScratchInfo(name=f"{pool}/tengig-scratch-{tag}", mountpoint="/mnt/tank/s", recordsize=MiB,
                           compression="off", atime="off")

    def set_primarycache(self, dataset, value):
        if self.refuse:
            raise CommandFailed(["zfs", "set"], 1, "", "cannot set property: operation not supported")

    def compressratio(self, dataset):
        return 1.0

    def dataset_properties(self, dataset):
        return {}

    def destroy(self, dataset):
        pass


class QuietOs:
    """An OS whose ARC stands still (no hits) and whose caches drop."""

    name, fio_ioengine = "linux", "libaio"

    def read_arc(self, ctx, host):
        return ArcSample(hits=0, misses=0, c_max=64 * MiB, source="scripted")

    def drop_caches(self, ctx, host):
        return True


def _run(speeds, *, against=None, storage=None, **request):
    nas = ScriptedNas(speeds)
    result = run_pool_bench(BenchContext(_Hosts(nas)), storage or Storage(), "nas",
                            PoolBenchRequest(pool="tank", preset="quick", **request), host_os=QuietOs(),
                            against=against)
    return result, nas


class _Hosts:
    def __init__(self, nas):
        self.nas = nas

    def run(self, host, argv, **options):
        return self.nas.run(host, argv, **options)


SEQ_W, SEQ_R = "seq1m-q8t1-write", "seq1m-q8t1-read"
STEADY = {SEQ_W: [400.0], SEQ_R: [800.0], "rnd4k-q32t1-write": [50.0], "rnd4k-q32t1-read": [60.0]}


def test_runs_that_agree_stop_at_two_with_the_reason_said():
    result, nas = _run({**STEADY, SEQ_W: [400.0, 404.0, 999.0]})
    write = result.phase("seq1m-q8t1", "write").bytes_per_s
    assert _mb(write.values) == [400, 404] and write.planned == 3 and write.stopped_early
    assert "agreed within 3%" in write.stopped_because and len(nas.fio(SEQ_W)) == 2


def test_runs_that_disagree_go_on_to_the_cap_and_say_nothing_stopped_them():
    result, nas = _run({**STEADY, SEQ_W: [400.0, 300.0, 350.0, 999.0]})
    write = result.phase("seq1m-q8t1", "write").bytes_per_s
    assert _mb(write.values) == [400, 300, 350] and not write.stopped_early and write.stopped_because is None
    assert len(nas.fio(SEQ_W)) == 3 == QUICK.repeats  # the cap: the preset's runs


def test_runs_that_disagree_far_above_every_figure_the_verdict_uses_stop_at_two():
    """At 1g a pool far faster than the link: a third run could not move the median across the link's ceiling."""
    against = {"write": [("the link's 117.7 MB/s", 117.7e6)], "read": [("the link's 117.7 MB/s", 117.7e6)]}
    result, _ = _run({**STEADY, SEQ_W: [400.0, 300.0, 999.0]}, against=against)
    write = result.phase("seq1m-q8t1", "write").bytes_per_s
    assert _mb(write.values) == [400, 300] and "117.7 MB/s" in write.stopped_because


def test_a_run_the_verdict_could_still_flip_on_goes_on():
    against = {"write": [("the target's 350 MB/s", 350e6)], "read": []}
    result, _ = _run({**STEADY, SEQ_W: [400.0, 300.0, 320.0]}, against=against)
    assert _mb(result.phase("seq1m-q8t1", "write").bytes_per_s.values) == [400, 300, 320]


def test_quick_sequential_runs_stop_after_their_seconds_and_reads_read_what_was_written():
    """A 400 MB/s pool writes 381 MiB in quick's 1 s, not the 512 MiB file: each read reads those bytes of its
    file; the random tests run over the file their layout wrote in its second."""
    result, nas = _run({**STEADY, "layout": [300.0]})
    writes, reads = nas.fio(SEQ_W), nas.fio(SEQ_R)
    assert all(_option(a, "runtime") == "1" and "--time_based" not in a for a in writes + reads)
    assert all(_option(a, "size") == str(512 * MiB) for a in writes)
    wrote = result.phase("seq1m-q8t1", "write").bytes_moved
    assert wrote == [381 * MiB] * len(writes)
    assert [(_option(a, "filename"), int(_option(a, "size"))) for a in reads] == [
        (_option(w, "filename"), n) for w, n in zip(writes, wrote)][:len(reads)]
    [layout] = nas.fio("layout")
    random = nas.fio("rnd4k-q32t1-write") + nas.fio("rnd4k-q32t1-read")
    assert _option(layout, "runtime") == "1" and all("tengig-pool-random" in _option(a, "filename") for a in random)
    assert {_option(a, "size") for a in random} == {str(286 * MiB)}  # 300 MB/s for 1 s, whole MiB
    assert result.bytes_written == sum(wrote) + 286 * MiB + sum(result.phase("rnd4k-q32t1", "write").bytes_moved)


def test_a_slow_pool_runs_longer_to_reach_the_smallest_sequential_file():
    """The random tests' file is written first, and its speed sets the runs' length: a 40 MB/s pool would
    write 38 MiB in 1 s, mostly ramp-up; its runs last until about 64 MiB (MIN_FILE), each read as long."""
    result, nas = _run({**STEADY, "layout": [40.0], SEQ_W: [40.0], SEQ_R: [45.0]})
    assert nas.fio("layout")[0] is next(a for a in nas.argv if a[0] == "fio")  # before any sequential run
    seq = nas.fio(SEQ_W) + nas.fio(SEQ_R)
    assert {_option(a, "runtime") for a in seq} == {"1900ms"}  # 64 MiB at 40 MB/s and 10%, in tenths
    assert all(moved >= 64 * MiB for p in result.phases if p.key == "seq1m-q8t1" for moved in p.bytes_moved)


def test_files_that_must_outgrow_the_arc_are_written_and_read_whole():
    """Without uncached writes, only a file larger than the ARC keeps a read off it: no seconds cap."""
    result, nas = _run(STEADY, storage=Storage(refuse=True), working_set=128 * MiB)
    assert result.cache_policy.method == "larger-than-arc"
    seq = nas.fio(SEQ_W) + nas.fio(SEQ_R)
    assert seq and all(_option(a, "runtime") is None and _option(a, "size") == str(128 * MiB) for a in seq)


def test_the_full_preset_keeps_whole_files_and_its_random_seconds():
    w = fio_argv(SEQ1M_Q8T1, "write", "/p/f0", 2048 * MiB, PRESETS["full"], "libaio")
    assert _option(w, "runtime") is None
    r = fio_argv(RND4K_Q32T1, "read", "/p/f1", 2048 * MiB, PRESETS["full"], "libaio")
    assert _option(r, "runtime") == "5" and "--time_based" in r


@pytest.mark.parametrize("repeats", [1, 3])
def test_repeats_asked_run_every_time_whatever_the_runs_say(repeats):
    result, nas = _run({**STEADY, SEQ_W: [400.0, 400.0, 400.0]}, repeats=repeats)
    assert len(nas.fio(SEQ_W)) == repeats and not result.phase("seq1m-q8t1", "write").bytes_per_s.stopped_early
