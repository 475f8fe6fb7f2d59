"""The pool benchmark's pure parts: working set, fio argv, statistics, space rule, ratios."""
import pytest

from tengig.backends.linux.zfs import parse_ratio
from tengig.bench.arc import ArcDelta, parse_grep_values, parse_sysctl_values
from tengig.bench.pool import fio_argv, working_set_for
from tengig.bench.pool_presets import PRESETS, RND4K_Q32T1, SEQ1M_Q8T1
from tengig.backends.scratch import PoolSpace
from tengig.bench.stats import summarize
from tengig.errors import ToolOutputError, ValidationError
from tengig.units import GiB, MiB


def test_working_set_is_at_least_twice_the_arc():
    quick = PRESETS["quick"]
    assert working_set_for(100 * MiB, quick, None) == 256 * MiB  # the preset's floor wins
    assert working_set_for(4 * GiB, quick, None) == 8 * GiB
    assert working_set_for(100 * MiB + 1, quick, 300 * MiB + 5) == 301 * MiB  # rounded up to MiB
    with pytest.raises(ValidationError) as err:
        working_set_for(1 * GiB, quick, 1 * GiB)
    assert err.value.errors[0][0] == "working_set"


def test_fio_argv_incompressible_writes_and_time_based_random():
    w = fio_argv(SEQ1M_Q8T1, "write", "/p/f0", 256 * MiB, PRESETS["quick"], "libaio")
    assert "--rw=write" in w and "--bs=1048576" in w and "--iodepth=8" in w and "--refill_buffers" in w
    assert "--end_fsync=1" in w and f"--size={256 * MiB}" in w and not any("time_based" in a for a in w)
    r = fio_argv(RND4K_Q32T1, "read", "/p/f1", 256 * MiB, PRESETS["full"], "posixaio")
    assert "--rw=randread" in r and "--time_based" in r and "--runtime=10" in r and "--ramp_time=2" in r
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
    assert parse_grep_values("/zfs-kstat/zfs/arcstats/hits:9\n/zfs-kstat/zfs/arcstats/c_max:104857600\n") == {
        "hits": 9, "c_max": 104857600}
    assert parse_sysctl_values("kstat.zfs.misc.arcstats.misses: 4124\n") == {"misses": 4124}
    assert ArcDelta(hits=1, misses=3).hit_ratio == 0.25 and ArcDelta(hits=0, misses=0).hit_ratio is None


def test_compressratio_parse():
    assert parse_ratio("1.00x") == 1.0 and parse_ratio("1.37") == 1.37
    with pytest.raises(ToolOutputError):
        parse_ratio("-")
