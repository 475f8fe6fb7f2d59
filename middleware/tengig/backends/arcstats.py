"""The ZFS ARC counters a system reports, whichever way it reports them (OpenZFS's kstat file,
zfs-fuse's kstat mount, FreeBSD's sysctl): the sample every backend produces and the benchmark reads.

A read's hit ratio counts data only where the counters split it (all three sources do): the ARC's metadata
hits (ZFS's own block pointers and dnodes, and more of them on a busy machine) are not the file's bytes. On
zfs-fuse a 256 MiB read of a primarycache=metadata file from the pool made 1985 data misses and 543 metadata
hits: 21% "hits" counted all together, 0% of the data."""
from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

NEEDED = ("hits", "misses", "c_max")
DATA_HITS = ("demand_data_hits", "prefetch_data_hits")
DATA_MISSES = ("demand_data_misses", "prefetch_data_misses")
# OpenZFS counts a demand read of a block its prefetch had just read from the pool as a demand hit: that
# block came from the disks, so it is taken off the data hits. Where that counter is missing (zfs-fuse, older
# ZFS), the blocks the prefetch read from the pool (its data misses) are taken off instead, the most such hits
# there can be. zfs-fuse's prefetch counted nothing in cold reads measured on the lab (CONTRIBUTING.md).
PREDICTIVE_HITS = "demand_hit_predictive_prefetch"
DATA_COUNTERS = DATA_HITS + DATA_MISSES + (PREDICTIVE_HITS,)


class ArcSample(BaseModel):
    hits: int
    misses: int
    c_max: int = Field(description="ARC maximum size, bytes.")
    source: str
    data_hits: int | None = Field(None, description="Data reads the ARC served (demand and prefetch data "
                                  "hits, less demand hits on blocks a prefetch had just read, or where that is "
                                  "not counted, less the prefetch's data misses: then it can be below zero, and "
                                  "only its change over a read is meant); None where the counters do not split "
                                  "data from metadata.")
    data_misses: int | None = Field(None, description="Data reads the ARC could not serve (demand and prefetch).")


def arc_sample_of(stats: Mapping[str, int], source: str) -> ArcSample | None:
    """{counter name: value} from any source -> the sample, or None where hits, misses or c_max is missing.
    The data counters are read where all four are there."""
    if not all(k in stats for k in NEEDED):
        return None
    sample = ArcSample(hits=stats["hits"], misses=stats["misses"], c_max=stats["c_max"], source=source)
    if all(k in stats for k in DATA_HITS + DATA_MISSES):
        from_prefetch = stats[PREDICTIVE_HITS] if PREDICTIVE_HITS in stats else stats["prefetch_data_misses"]
        sample.data_hits = sum(stats[k] for k in DATA_HITS) - from_prefetch
        sample.data_misses = sum(stats[k] for k in DATA_MISSES)
    return sample
