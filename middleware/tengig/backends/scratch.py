"""The scratch dataset a pool benchmark writes to: what a storage backend must offer (ZFS CLI on
Linux and in the lab; pool.dataset.* on TrueNAS), and the rules it follows (docs/physics.md §6,
docs/truenas-api.md §4): compression off, atime off, the largest recordsize the pool takes, no quota, tagged with
a user property so a sweep can always find and remove what a crashed run left behind."""
from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, Field

from ..errors import Aborted, TengigError

SCRATCH_PROPERTY = "tengig:scratch"
SCRATCH_PREFIX = "tengig-scratch"
# Largest first: OpenZFS with large_blocks takes 1M; zfs-fuse (pool v23) and old pools stop at 128K.
RECORDSIZES = ("1M", "128K")
PrimaryCache = Literal["all", "metadata"]
MAX_FILL = 0.80  # never fill a pool past 80% (ZFS slows down sharply as it fills)
# What sets how fast a dataset takes data: the pool's scratch dataset and the one SMB copies to are compared on
# these (verdict/overrun.py). sync only where the pool has it (pool version 28 on; zfs-fuse's v23 has none).
SPEED_PROPERTIES = ("atime", "compression", "dedup", "recordsize", "sync")


def require_scratch(dataset: str, action: str) -> None:
    """Refuse ``action`` on anything but a tengig scratch dataset (a bug, never user input)."""
    if f"/{SCRATCH_PREFIX}-" not in dataset:
        raise ValueError(f"refusing to {action} {dataset!r}: not a tengig scratch dataset")


class PoolSpace(BaseModel):
    used: int = Field(description="Bytes used in the pool (root dataset used).")
    available: int = Field(description="Bytes still available to datasets.")

    @property
    def total(self) -> int:
        return self.used + self.available

    def fill_after(self, extra: int) -> float:
        return (self.used + extra) / self.total if self.total else 1.0


class ScratchInfo(BaseModel):
    name: str = Field(description="Dataset name, e.g. tank/tengig-scratch-1795257770.")
    mountpoint: str
    recordsize: int = Field(description="Bytes.")
    compression: str
    atime: str


class ScratchStorage(Protocol):
    """Where a pool benchmark gets its scratch dataset. Every method raises a TengigError on failure."""

    def space(self, pool: str) -> PoolSpace: ...

    def create_scratch(self, pool: str, tag: str) -> ScratchInfo: ...

    def compressratio(self, dataset: str) -> float: ...

    def destroy(self, dataset: str) -> None: ...

    def find_scratch(self, pool: str) -> list[str]: ...

    def set_primarycache(self, dataset: str, value: PrimaryCache) -> None:
        """Set a scratch dataset's primarycache (bench/phases/cache_policy.py keeps the ARC out of reads with it)."""
        ...

    def dataset_mounted_at(self, path: str) -> str | None:
        """The ZFS filesystem whose mountpoint is ``path`` (an SMB share's directory), or None."""
        ...

    def create_scratch_under(self, parent: str, tag: str, *, inherit: bool = False) -> ScratchInfo:
        """A scratch dataset as a child of ``parent`` (so it appears inside that dataset's directory); with
        ``inherit`` it sets none of its own speed properties and takes the parent's (an SMB share's scratch:
        what SMB copies through is then the share's recordsize, compression, atime, sync and dedup)."""
        ...

    def dataset_properties(self, dataset: str) -> dict[str, str]:
        """``dataset``'s SPEED_PROPERTIES that it has, as `zfs get -Hp` prints them (recordsize in bytes)."""
        ...

    def settle_writes(self, pool: str) -> str:
        """Wait until ``pool`` has written out what was written to it, so the reads that follow do not
        compete with its write-back; says how it knew (or why it could not), for the report."""
        ...


def speed_properties(storage: ScratchStorage, dataset: str) -> dict[str, str]:
    """``dataset``'s SPEED_PROPERTIES; none when they cannot be read (the verdict then says it could not compare
    the pool's dataset with the share's: a gap in one explanation, not a failed run)."""
    try:
        return storage.dataset_properties(dataset)
    except Aborted:
        raise  # the run was cancelled: that is no gap to note
    except TengigError:
        return {}
