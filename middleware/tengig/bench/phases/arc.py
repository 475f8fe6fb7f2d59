"""The ZFS ARC as a benchmark sees it: its size (to size a working set the cache cannot hold) and its
hit/miss counters (to show the reads came from the disks, docs/physics.md §6).

Read on a Linux NAS host here, from whichever source its ZFS offers: OpenZFS's /proc/spl/kstat/zfs/arcstats
or zfs-fuse's kstat mount (one file per value), parsed by backends/linux/arcstats.py. A FreeBSD NAS's counters come through the sysctl seam
(backends.freebsd.arc); systems/host_os.py picks which, by the NAS's OS."""
from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

from ...backends.arcstats import DATA_COUNTERS, NEEDED, ArcSample, arc_sample_of
from ...backends.linux.arcstats import PROC_ARCSTATS, ZFS_FUSE_KSTAT, parse_arcstats, parse_kstat_grep
from ...errors import BenchRefused, ToolOutputError
from ..context import BenchContext
from .cache_policy import CachePolicy

if TYPE_CHECKING:
    from ...backends.host_os import HostOs

class ArcDelta(BaseModel):
    """Hits and misses between two samples: of data reads where both samples split them, else of all reads."""
    hits: int
    misses: int

    def __add__(self, other: "ArcDelta") -> "ArcDelta":
        return ArcDelta(hits=self.hits + other.hits, misses=self.misses + other.misses)

    @property
    def hit_ratio(self) -> float | None:
        total = self.hits + self.misses
        return self.hits / total if total else None


def read_arc(ctx: BenchContext, host: str) -> ArcSample:
    """A Linux host's ARC counters (HostOs.read_arc: a FreeBSD host's come through the sysctl seam)."""
    tried = []
    done = ctx.run(host, ["cat", PROC_ARCSTATS], timeout=10, check=False, record=False)
    if done.returncode == 0:
        sample = arc_sample_of(parse_arcstats(done.stdout), PROC_ARCSTATS)
        if sample:
            return sample
    tried.append(PROC_ARCSTATS)
    files = [f"{ZFS_FUSE_KSTAT}/{k}" for k in NEEDED + DATA_COUNTERS]
    done = ctx.run(host, ["grep", "-H", "", *files], timeout=10, check=False, record=False)
    # grep exits 2 where a file is missing (zfs-fuse has no demand_hit_predictive_prefetch) and prints the rest
    if done.returncode in (0, 2) and (sample := arc_sample_of(parse_kstat_grep(done.stdout), ZFS_FUSE_KSTAT)):
        return sample
    tried.append(ZFS_FUSE_KSTAT)
    raise ToolOutputError(
        f"no ARC statistics on {host} (tried {', '.join(tried)}): without them tengig cannot show that reads "
        "came from the disks; is ZFS loaded (zfs-fuse: was it started without --no-kstat-mount)?"
    )


def arc_for_run(host_os: "HostOs", ctx: BenchContext, host: str,
                policy: CachePolicy) -> tuple[ArcSample | None, list[str]]:
    """The NAS's ARC counters and what the run's result names as unknown: (the counters, []), or (None, the
    ARC as an unknown with why: arc_unknown) where they cannot be read (TrueNAS's app in a container that does
    not show the host's kstat); the caller then measures without them."""
    try:
        return host_os.read_arc(ctx, host), []
    except ToolOutputError as exc:
        return None, [arc_unknown(policy, exc.message)]


def arc_unknown(policy: CachePolicy, why: str) -> str:
    """The ARC's counters as an unknown of a run (the pool's, a desktop's SMB copies), with why; BenchRefused
    where the run needs them: files 2 x an ARC of no known size cannot be sized."""
    if not policy.uncached:
        raise BenchRefused(f"the ARC's size is needed and cannot be read here ({why}), and {policy.note}: make the "
                           "host's ARC statistics visible to tengig (TrueNAS's app: /proc/spl/kstat/zfs/arcstats), "
                           "or let tengig set primarycache on its scratch dataset")
    return (f"the ARC's size and its hits during the reads: {why}; the reads were kept out of the ARC by writing "
            "their files with primarycache=metadata, but their hits were not counted")


def delta(before: ArcSample, after: ArcSample) -> ArcDelta:
    """The reads between two samples: the data reads where both samples count them apart (ZFS's metadata hits
    are no bytes of the file read), else all reads."""
    if None not in (before.data_hits, before.data_misses, after.data_hits, after.data_misses):
        return ArcDelta(hits=max(0, after.data_hits - before.data_hits),
                        misses=max(0, after.data_misses - before.data_misses))
    return ArcDelta(hits=max(0, after.hits - before.hits), misses=max(0, after.misses - before.misses))
