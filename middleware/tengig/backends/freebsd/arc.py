"""The ZFS ARC on FreeBSD: ``kstat.zfs.misc.arcstats.*`` through the sysctl seam.

Key names differ between FreeBSD's own ZFS (<= 12: recycle_miss, arc_meta_*; printed last-to-first)
and OpenZFS (13+: 2.2 adds iohits, pm/pd for p). The ones read here exist in all of them: hits,
misses, c_max, c_min, c, size. This is the one parser of FreeBSD arcstats: the benchmark's ARC reads on a
FreeBSD NAS (tengig.systems.host_os.FreeBsdHost.read_arc) are ``arc_sample`` of the NAS's sysctl seam.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from ..arcstats import NEEDED, ArcSample, arc_sample_of
from ...errors import ToolOutputError
from .sysctl import RecordedSysctl, SysctlSource

ARCSTATS = "kstat.zfs.misc.arcstats"
STATS_NEEDED = ("hits", "misses", "c_max", "size")


class ArcStats(BaseModel):
    """ARC counters and sizes, bytes. Unknown keys (the dozens of others) are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    hits: int = Field(description="Reads served from the ARC since boot.")
    misses: int = Field(description="Reads the ARC could not serve since boot.")
    c_max: int = Field(description="Largest size the ARC may grow to, bytes.")
    size: int = Field(description="Current ARC size, bytes.")
    c_min: int | None = Field(default=None, description="Smallest size the ARC shrinks to, bytes.")
    c: int | None = Field(default=None, description="Current target size, bytes.")


def arcstats_counters(values: Mapping[str, int | str]) -> dict[str, int]:
    """{'kstat.zfs.misc.arcstats.hits': 8019094, ...} -> {'hits': 8019094, ...}; whole numbers only."""
    head = ARCSTATS + "."
    return {name[len(head):]: value for name, value in values.items()
            if name.startswith(head) and isinstance(value, int)}


def arcstats_from_text(text: str) -> dict[str, int]:
    """`sysctl kstat.zfs.misc.arcstats[.NAME ...]` output -> {'hits': N, ...}."""
    return arcstats_counters(RecordedSysctl(text).values(ARCSTATS))


def _require(counters: dict[str, int], keys: Iterable[str]) -> None:
    missing = [key for key in keys if key not in counters]
    if missing:
        got = f"{len(counters)} other values" if counters else "no values at all (is ZFS loaded?)"
        raise ToolOutputError(
            f"{ARCSTATS} has no {', '.join(missing)}: read {got}; without them tengig cannot size a working "
            "set past the ARC or show that reads came from the disks")


def arc_stats(source: SysctlSource) -> ArcStats:
    counters = arcstats_counters(source.values(ARCSTATS))
    _require(counters, STATS_NEEDED)
    return ArcStats.model_validate(counters)


def arc_sample(source: SysctlSource) -> ArcSample:
    """What the benchmark's ARC check needs (hits, misses, c_max; the data reads' where they are counted apart),
    as tengig.bench.phases.arc.ArcSample."""
    counters = arcstats_counters(source.values(ARCSTATS))
    _require(counters, NEEDED)
    sample = arc_sample_of(counters, f"sysctl {ARCSTATS}")
    assert sample is not None  # _require checked NEEDED
    return sample
