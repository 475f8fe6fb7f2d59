"""The pool benchmark's pure parts: working set, fio argv, statistics, space rule, ratios; and one real fio
run past its timeout (what its argv leaves behind)."""
import subprocess
from pathlib import Path

import pytest

from tengig.backends.linux.zfs import parse_ratio
from tengig.backends.freebsd.arc import arcstats_from_text
from tengig.backends.linux.arcstats import parse_kstat_grep
from tengig.bench.phases.arc import ArcDelta
from tengig.bench.phases.cache_policy import LARGER_THAN_ARC, CachePolicy, file_size, keep_arc_out, reading
from tengig.bench.phases.pool import fio_argv
from tengig.bench.phases.pool_presets import PRESETS, RND4K_Q32T1, SEQ1M_Q8T1
from tengig.backends.scratch import PoolSpace
from tengig.bench.stats import summarize
from tengig.errors import CommandTimeout, ToolOutputError, ValidationError
from tengig.runner import run
from tengig.units import GiB, MiB



UNCACHED = CachePolicy(method="uncached-writes", dataset="tank/tengig-scratch-1", note="uncached")


def test_only_the_fallback_grows_the_files_with_the_arc():
    quick = PRESETS["quick"].working_set
    assert file_size(LARGER_THAN_ARC, 100 * MiB, 256 * MiB, None, field="w") == 256 * MiB  # the preset's size wins
    assert file_size(LARGER_THAN_ARC, 4 * GiB, quick, None, field="w") == 8 * GiB
    assert file_size(LARGER_THAN_ARC, 100 * MiB + 1, quick, 300 * MiB + 5, field="w") == 301 * MiB  # whole MiB
    with pytest.raises(ValidationError) as err:
        file_size(LARGER_THAN_ARC, 1 * GiB, quick, 1 * GiB, field="working_set")
    assert err.value.errors[0][0] == "working_set" and "2 x the ARC" in err.value.errors[0][1]
    # uncached writes: a NAS with 128 GiB of RAM (an ARC of 100 GiB) writes the preset's size, not 200 GiB
    assert file_size(UNCACHED, 100 * GiB, quick, None, field="w") == quick == 512 * MiB
    assert file_size(UNCACHED, 100 * GiB, quick, 100 * MiB, field="w") == 100 * MiB
    with pytest.raises(ValidationError) as err:
        file_size(UNCACHED, 100 * MiB, quick, 8 * MiB, field="working_set")
    assert "too small" in err.value.errors[0][1]


class _Storage:
    """Records primarycache switches; refuses them when told to (a ZFS that cannot)."""

    def __init__(self, refuse: bool = False):
        self.refuse, self.calls = refuse, []

    def set_primarycache(self, dataset, value):
        if self.refuse:
            from tengig.errors import CommandFailed
            raise CommandFailed(["zfs", "set"], 1, "", "cannot set property: permission denied")
        self.calls.append((dataset, value))


def test_sequential_reads_switch_the_cache_on_and_always_back():
    storage = _Storage()
    assert keep_arc_out(storage, "tank/tengig-scratch-1").uncached
    with pytest.raises(RuntimeError):
        with reading(storage, UNCACHED, sequential=True):
            raise RuntimeError("fio failed")
    with reading(storage, UNCACHED, sequential=False):  # random reads stay uncached
        pass
    assert storage.calls == [("tank/tengig-scratch-1", "metadata"), ("tank/tengig-scratch-1", "all"),
                             ("tank/tengig-scratch-1", "metadata")]


def test_a_zfs_that_cannot_set_primarycache_falls_back_and_says_why():
    policy = keep_arc_out(_Storage(refuse=True), "tank/tengig-scratch-1")
    assert policy.method == "larger-than-arc" and "permission denied" in policy.note and "2 x the ARC" in policy.note


def test_fio_argv_incompressible_writes_and_time_based_random():
    w = fio_argv(SEQ1M_Q8T1, "write", "/p/f0", 256 * MiB, PRESETS["quick"], "libaio")
    assert "--rw=write" in w and "--bs=1048576" in w and "--iodepth=8" in w and "--refill_buffers" in w
    assert "--end_fsync=1" in w and f"--size={256 * MiB}" in w and not any("time_based" in a for a in w)
    r = fio_argv(RND4K_Q32T1, "read", "/p/f1", 256 * MiB, PRESETS["full"], "posixaio")
    assert "--rw=randread" in r and "--time_based" in r and "--runtime=5" in r and "--ramp_time=2" in r
    assert "--refill_buffers" not in r and "--ioengine=posixaio" in r
    # one job per fio call: phases never run concurrently (docs/physics.md §6)
    assert sum(a.startswith("--name=") for a in w + r) == 2


def test_median_and_cv():
    s = summarize([100.0, 110.0, 90.0])
    assert s.median == 100 and s.cv_percent == pytest.approx(10.0) and not s.stable
    assert summarize([5.0]).cv_percent is None and summarize([5.0]).stable
    with pytest.raises(ValueError):
        summarize([])


def test_eighty_percent_rule_arithmetic():
    space = PoolSpace(used=1 * GiB, available=9 * GiB)
    assert space.total == 10 * GiB
    assert space.fill_after(7 * GiB) == pytest.approx(0.8)
    assert space.fill_after(7 * GiB + 1) > 0.8


def test_arc_sources_and_ratio():
    assert parse_kstat_grep("/zfs-kstat/zfs/arcstats/hits:9\n/zfs-kstat/zfs/arcstats/c_max:104857600\n") == {
        "hits": 9, "c_max": 104857600}
    assert arcstats_from_text("kstat.zfs.misc.arcstats.misses: 4124\n") == {"misses": 4124}
    assert ArcDelta(hits=1, misses=3).hit_ratio == 0.25 and ArcDelta(hits=0, misses=0).hit_ratio is None


def test_compressratio_parse():
    assert parse_ratio("1.00x") == 1.0 and parse_ratio("1.37") == 1.37
    with pytest.raises(ToolOutputError):
        parse_ratio("-")


def test_repeats_stop_once_two_runs_agree_and_never_below_two():
    from tengig.bench.stats import settled

    assert not settled([100.0], 3)  # one run is no spread
    assert settled([100.0, 101.0], 3)  # CV 0.7%: a third run would not move the median the verdict uses
    assert not settled([100.0, 110.0], 3)  # CV 6.7%: keep going
    assert not settled([100.0, 101.0, 100.5], 3)  # all planned runs done: nothing to stop
    r = summarize([100.0, 101.0], planned=3)
    assert r.stopped_early and not summarize([1.0, 2.0, 3.0], planned=3).stopped_early


def test_the_median_of_all_planned_runs_is_bounded_by_the_runs_so_far():
    """Checked against every way the remaining runs could land (a grid below, between and above)."""
    import itertools
    import statistics

    from tengig.bench.stats import median_bounds

    assert median_bounds([100.0], 3) is None  # two runs left could put the median anywhere
    assert median_bounds([120.0, 100.0], 3) == (100.0, 120.0)
    assert median_bounds([1.0, 2.0], 5) is None
    for done, planned in (([100.0, 120.0], 3), ([90.0, 100.0, 130.0], 5), ([90.0, 100.0, 130.0], 4),
                          ([80.0, 95.0, 100.0, 130.0], 5)):
        low, high = median_bounds(done, planned)
        for rest in itertools.product((0.0, 85.0, 97.0, 110.0, 125.0, 1e6), repeat=planned - len(done)):
            assert low <= statistics.median(done + list(rest)) <= high, (done, rest)


def test_repeats_stop_once_no_run_left_could_change_the_verdict():
    from tengig.bench.stats import settled

    link = [("the link ceiling 117.7 MB/s", 117.7e6)]
    # 204 and 222 MB/s: 10% apart, yet a third run cannot pull the median of three below the link's 117.7
    why = settled([204e6, 222e6], 3, link)
    assert why == "no run left could move the median across the link ceiling 117.7 MB/s"
    # ... but 110 and 125 straddle it: the third run decides which side the median lands
    assert settled([110e6, 125e6], 3, link) is None
    # the same spread with no figure to compare (against=None) keeps the old rule: CV over 3%, go on
    assert settled([204e6, 222e6], 3) is None
    # a test the verdict does not use (against=[]) stops at two runs, and never at one
    assert settled([1.0, 5.0], 3, []) == "the verdict does not use this test"
    assert settled([1.0], 3, []) is None
    # five planned: two runs bound nothing, three do
    assert settled([204e6, 222e6], 5, link) is None
    assert settled([204e6, 222e6, 250e6], 5, link)
    r = summarize([204e6, 222e6], planned=3, stopped_because="because")
    assert r.stopped_because == "because" and summarize([1.0, 2.0, 3.0], planned=3, stopped_because="x").stopped_because is None


def test_the_verdicts_thresholds_are_the_figures_it_compares():
    from tengig.verdict.models import Ceiling
    from tengig.verdict.targets import find_target
    from tengig.verdict.thresholds import link_ceiling, pool_thresholds, smb_thresholds

    hdd = find_target("hdd-15k-best")
    link = [link_ceiling(1e9, 1500, d) for d in ("read", "write")]
    read = pool_thresholds(hdd, "read", link)
    assert [round(v / 1e6, 1) for _, v in read] == [223.4, 117.7]
    assert read[0][0] == "the target's 223.4 MB/s" and read[1][0] == "the link ceiling 117.7 MB/s"
    # a target with no write figure: only the link
    assert [round(v / 1e6, 1) for _, v in pool_thresholds(hdd, "write", link)] == [117.7]
    pool = Ceiling(component="pool", direction="read", bytes_per_s=80e6, provenance="measured", label="fio")
    net = Ceiling(component="network", direction="read", bytes_per_s=110e6, provenance="measured", label="iperf3")
    smb = smb_thresholds(hdd, "read", [*link, pool, net])
    # SMB against the target, and against 70% of the lowest of pool/link/network (here the pool's 80 MB/s)
    assert smb[0][1] == hdd.read_bytes_per_s and smb[1] == ("70% of the pool ceiling 80.00 MB/s", 0.7 * 80e6)


def test_zpool_iostat_write_bandwidth_from_recorded_zfs_fuse_output():
    from tengig.backends.linux.zfs import iostat_write_bps

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "zpool"
    idle = (fixtures / "iostat-zfs-fuse-idle.txt").read_text()
    assert iostat_write_bps(idle, "tgtank") == 0  # the last line (the second just gone), not the average's 5.50M
    assert iostat_write_bps((fixtures / "iostat-zfs-fuse-writing.txt").read_text(), "tgtank") == int(99.9 * 2**20)
    assert iostat_write_bps(idle, "tank") is None  # another pool's lines are not this pool's
    assert iostat_write_bps((fixtures / "iostat-no-such-pool.txt").read_text(), "nosuchpool") is None


def test_quick_sizes_smb_copies_by_the_measured_network_and_full_does_not():
    from tengig.bench.phases.pool_presets import PRESETS, smb_copy_size

    quick, full = PRESETS["quick"], PRESETS["full"]
    assert smb_copy_size(quick, 941e6) == 168 * MiB  # 1.5 s at 941 Mb/s, whole MiB
    assert smb_copy_size(quick, 94.1e6) == 64 * MiB  # 100 Mb/s: the floor, not 23 s per copy
    assert smb_copy_size(quick, 9.4e9) == quick.smb_file  # 10 Gb/s: the preset's, at most
    assert smb_copy_size(quick, None) == quick.smb_file  # nothing measured (an SMB-only run)
    assert smb_copy_size(full, 941e6) == full.smb_file


def test_a_timed_out_fio_leaves_no_job_behind(tmp_path):
    """The pool's fio run for real past its timeout: the runner's KILL of its group reaches every job (run as
    threads: fio's job processes call setsid and would escape it), so no fio on the file is left."""
    path = tmp_path / "tengig-pool-0.dat"
    argv = fio_argv(SEQ1M_Q8T1, "write", str(path), 4096 * MiB, PRESETS["full"], "psync", seconds=60)
    with pytest.raises(CommandTimeout):
        run(argv, timeout=1.0)
    left = subprocess.run(["pgrep", "-f", str(path)], capture_output=True, text=True, timeout=10)
    assert left.stdout == "", f"fio left running: {left.stdout}"
