"""A read's ARC hit ratio counts the data reads (bench/phases/arc.py, backends/arcstats.py): ZFS's metadata
hits are no bytes of the file read, and they rise on a busy machine (a scaling sweep on the second lab was
refused at 14% "hits" while it read from the pool). Recorded counters from each source, and the real grep on
zfs-fuse's recorded kstat files."""
from __future__ import annotations

from pathlib import Path

import pytest

from tengig.backends.arcstats import ArcSample, arc_sample_of
from tengig.backends.freebsd import RecordedSysctl, arc_sample
from tengig.backends.linux.arcstats import parse_arcstats, parse_kstat_grep
from tengig.bench.context import BenchContext
from tengig.bench.phases import arc as arc_phase
from tengig.bench.phases.arc import delta, read_arc
from tengig.bench.phases.cache_policy import MAX_SEQ_READ_HIT_RATIO
from tengig.systems.local_bench import LocalHosts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
KSTAT = "/zfs-kstat/zfs/arcstats"
# zfs-fuse's counters around one 256 MiB `dd` read of a primarycache=metadata file from the lab's pool
# (recorded 2026-11-28, `grep -H "" FILE...` as the NAS reads them): every data read a miss, and 543
# metadata hits beside them.
BEFORE = {"hits": 1343, "misses": 36, "c_max": 104857600, "demand_data_hits": 0, "demand_data_misses": 0,
          "prefetch_data_hits": 0, "prefetch_data_misses": 0}
AFTER = {"hits": 1886, "misses": 2021, "c_max": 104857600, "demand_data_hits": 0, "demand_data_misses": 1985,
         "prefetch_data_hits": 0, "prefetch_data_misses": 0}


def _grep_text(stats: dict[str, int]) -> str:
    return "".join(f"{KSTAT}/{name}:{value}\n" for name, value in stats.items())


def test_metadata_hits_do_not_make_a_pool_read_look_cached():
    before, after = (arc_sample_of(parse_kstat_grep(_grep_text(s)), KSTAT) for s in (BEFORE, AFTER))
    all_reads = (AFTER["hits"] - BEFORE["hits"]) / (AFTER["hits"] + AFTER["misses"] - BEFORE["hits"] - BEFORE["misses"])
    assert all_reads > MAX_SEQ_READ_HIT_RATIO  # counted all together, the read would be refused as cached
    read = delta(before, after)
    assert (read.hits, read.misses, read.hit_ratio) == (0, 1985, 0.0)


def test_a_read_the_arc_served_still_counts_as_one():
    cached = dict(AFTER, hits=AFTER["hits"] + 2048, demand_data_hits=2048)
    read = delta(arc_sample_of(AFTER, KSTAT), arc_sample_of(cached, KSTAT))
    assert read.hit_ratio == 1.0 and read.hit_ratio > MAX_SEQ_READ_HIT_RATIO


def test_without_data_counters_every_read_counts():
    """An ARC whose counters do not split data from metadata: the ratio of all reads, as before."""
    keep = ("hits", "misses", "c_max")
    before = arc_sample_of({k: BEFORE[k] for k in keep}, "old")
    after = arc_sample_of({k: AFTER[k] for k in keep}, "old")
    assert before.data_hits is None
    assert (delta(before, after).hits, delta(before, after).misses) == (543, 1985)
    # one sample with them and one without: all reads too, never a mix
    assert delta(arc_sample_of(BEFORE, KSTAT), after).hits == 543


def test_openzfs_on_linux_takes_off_the_demand_hits_on_prefetched_blocks():
    sample = arc_sample_of(parse_arcstats((FIXTURES / "arcstats" / "openzfs.txt").read_text()), "proc")
    assert sample.data_hits == 10429170 + 80531 - 58346
    assert sample.data_misses == 426233 + 439873


@pytest.mark.parametrize("recorded, hits, misses", [
    ("arcstats-openzfs22-freebsd14.txt", 6040389 + 3407 - 20427, 61775 + 11565),
    ("arcstats-legacy-freebsd10.txt", 22417340, 75230),
])
def test_freebsd_sysctl_gives_the_data_counters(recorded, hits, misses):
    sample = arc_sample(RecordedSysctl((FIXTURES / "freebsd" / recorded).read_text()))
    assert (sample.data_hits, sample.data_misses) == (hits, misses)


def test_the_nas_reads_zfs_fuse_kstat_with_grep_and_a_missing_counter_is_no_failure(monkeypatch):
    """The real grep on zfs-fuse's recorded kstat files: zfs-fuse has no demand_hit_predictive_prefetch, so
    grep exits 2 for it and prints the rest."""
    folder = FIXTURES / "arcstats" / "zfs-fuse"
    monkeypatch.setattr(arc_phase, "PROC_ARCSTATS", "/nonexistent/arcstats")
    monkeypatch.setattr(arc_phase, "ZFS_FUSE_KSTAT", str(folder))
    sample = read_arc(BenchContext(LocalHosts("nas")), "nas")
    value = {name: int((folder / name).read_text()) for name in
             ("hits", "misses", "c_max", "demand_data_hits", "prefetch_data_hits", "demand_data_misses",
              "prefetch_data_misses")}
    assert sample == ArcSample(hits=value["hits"], misses=value["misses"], c_max=value["c_max"], source=str(folder),
                               data_hits=value["demand_data_hits"] + value["prefetch_data_hits"]
                               - value["prefetch_data_misses"],
                               data_misses=value["demand_data_misses"] + value["prefetch_data_misses"])


def test_without_the_predictive_counter_a_cold_sequential_read_is_not_counted_as_cached():
    """zfs-fuse counts a demand read of a block its prefetch had just read from the pool as a hit, and has no
    counter for those: a cold sequential read counted 11% data hits (run40's false refusal). The prefetch's
    data misses are taken off; a read the ARC served stays a hit."""
    before = dict(BEFORE)
    cold = dict(BEFORE, demand_data_hits=240, demand_data_misses=1800, prefetch_data_misses=260)
    assert delta(arc_sample_of(before, "kstat"), arc_sample_of(cold, "kstat")).hit_ratio == 0
    warm = dict(BEFORE, demand_data_hits=2048)
    assert delta(arc_sample_of(before, "kstat"), arc_sample_of(warm, "kstat")).hit_ratio == 1
