"""Keeping the ARC out of a benchmark's reads with files whose size does not grow with the NAS's RAM
(docs/physics.md §6).

``uncached-writes``: the files are written on a scratch dataset of the run's own with
primarycache=metadata, so ZFS keeps none of their data in the ARC, and each is read once afterwards:
sequential reads with primarycache=all (ZFS's prefetch works as for any file; with primarycache=metadata,
OpenZFS before 2.2 skips prefetch and under-reads), random reads with primarycache=metadata (prefetch plays
no part, and no read warms the next). Measured on the lab (zfs-fuse, ARC 100 MiB): a 64 MiB file written
this way was read with 6 ARC hits and 512 misses; the same file written with primarycache=all, 514 hits and
0 misses.

``larger-than-arc``, where primarycache cannot be set: every file is at least 2 x the ARC's maximum size,
so the bytes a run writes grow with the NAS's RAM; the report says so.

Whatever the method, the ARC's hits are counted around every read, and a sequential read the ARC served
fails the run."""
from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from pydantic import BaseModel, Field

from ...backends.scratch import ScratchStorage
from ...errors import TengigError, ValidationError
from ...units import MiB, format_size

ARC_FACTOR = 2
MAX_SEQ_READ_HIT_RATIO = 0.10  # above this, a sequential read measured the cache, not the pool
MIN_FILE = 64 * MiB  # below this a sequential figure is mostly ramp-up

Method = Literal["uncached-writes", "larger-than-arc"]


class CachePolicy(BaseModel):
    method: Method = Field(description="How the ARC was kept out of the reads: uncached-writes (files written "
                           "with primarycache=metadata, a bounded size) or larger-than-arc (each file 2 x the ARC).")
    dataset: str | None = Field(None, description="The scratch dataset whose primarycache the run switches.")
    note: str = Field(description="The method in words, with the reason for a fallback.")

    @property
    def uncached(self) -> bool:
        return self.method == "uncached-writes"


LARGER_THAN_ARC = CachePolicy(method="larger-than-arc", note=f"each file {ARC_FACTOR} x the ARC")


def keep_arc_out(storage: ScratchStorage, dataset: str) -> CachePolicy:
    """Switch a fresh scratch dataset to uncached writes, or say why the run falls back to 2 x ARC."""
    try:
        storage.set_primarycache(dataset, "metadata")
    except TengigError as exc:
        return CachePolicy(method="larger-than-arc", note=(
            f"primarycache could not be set on {dataset} ({exc.message[:200]}): each file is {ARC_FACTOR} x the "
            "ARC, so this run writes more the more RAM the NAS has"))
    return CachePolicy(method="uncached-writes", dataset=dataset, note=(
        "files written with primarycache=metadata (none of their data in the ARC), each read once"))


def file_size(policy: CachePolicy, arc_max: int, default: int, requested: int | None, *, field: str) -> int:
    """Bytes per test file, rounded up to whole MiB. Only larger-than-arc grows with the ARC."""
    floor = ARC_FACTOR * arc_max if policy.method == "larger-than-arc" else MIN_FILE
    if requested is not None:
        if requested < floor:
            why = (f"smaller than {ARC_FACTOR} x the ARC ({format_size(arc_max)}): the reads would come from RAM"
                   if policy.method == "larger-than-arc" else "too small for a sequential figure")
            raise ValidationError.one(field, f"{format_size(requested)} is {why}; use at least {format_size(floor)}")
        size = requested
    else:
        size = max(floor, default)
    return math.ceil(size / MiB) * MiB


@contextmanager
def reading(storage: ScratchStorage, policy: CachePolicy, *, sequential: bool) -> Iterator[None]:
    """Around a read phase: sequential reads of uncached files with primarycache=all (prefetch works),
    back to metadata afterwards whatever happened."""
    if not (policy.uncached and sequential and policy.dataset):
        yield
        return
    storage.set_primarycache(policy.dataset, "all")
    try:
        yield
    finally:
        storage.set_primarycache(policy.dataset, "metadata")
