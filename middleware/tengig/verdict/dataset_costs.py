"""The share dataset's own properties that cost SMB throughput (pure): the SMB copies go through a scratch dataset
that inherits the share's recordsize, compression, atime, sync and dedup, and the pool was measured on one with
the cheap values (bench/phases/pool.py). Where the share's value is costlier than the pool measurement's, the
pool's figure is what the share gives once that value is gone: the verdict names it, and the fix sets the pool
measurement's value (its figure is what the prediction comes from).

Values as zfs prints them with -p (recordsize in bytes) or as TrueNAS does (upper case): compared in lower case."""
from __future__ import annotations

from dataclasses import dataclass

from ..units import format_size
from .models import Direction, Facts

DEDUP_OFF = "off"
# compression a CPU feels at 10 Gb/s: gzip at every level, zstd from level 10 on (lz4, zle, lzjb cost little)
HEAVY_ZSTD_LEVEL = 10


@dataclass(frozen=True)
class DatasetCost:
    """One property of the share's dataset costlier than the pool measurement's."""

    prop: str
    share_value: str
    pool_value: str
    better: str  # what the fix sets: the pool measurement's value (sync: standard, dedup: off)
    directions: tuple[Direction, ...]  # what it slows
    what: str  # why, in words

    def text(self) -> str:
        return (f"{self.prop} {shown(self.prop, self.share_value)} on the share where the pool was measured with "
                f"{shown(self.prop, self.pool_value)} ({self.what})")


def shown(prop: str, value: str) -> str:
    return format_size(int(value)) if prop == "recordsize" and value.isdigit() else value


def _heavy_compression(value: str) -> bool:
    if value.startswith("gzip"):
        return True
    if value.startswith("zstd"):
        level = value.rsplit("-", 1)[-1]
        return level.isdigit() and int(level) >= HEAVY_ZSTD_LEVEL
    return False


def _bytes(value: str) -> int | None:
    return int(value) if value.isdigit() else None


def _cost(prop: str, share: str, pool: str) -> DatasetCost | None:
    s, p = share.lower(), pool.lower()
    if prop == "sync" and s == "always" and p != "always":
        return DatasetCost(prop, share, pool, "standard", ("write",), "every write waits for the disks")
    if prop == "dedup" and s != DEDUP_OFF and p == DEDUP_OFF:
        return DatasetCost(prop, share, pool, DEDUP_OFF, ("write",), "every write looks up its blocks in the dedup "
                           "table")
    if prop == "recordsize" and (a := _bytes(s)) and (b := _bytes(p)) and a < b:
        return DatasetCost(prop, share, pool, f"{b // 1024}K", ("read", "write"), f"{b // a} times the records, "
                           "each with its own checksum, metadata and I/O, for the same bytes")
    if prop == "compression" and _heavy_compression(s) and not _heavy_compression(p):
        return DatasetCost(prop, share, pool, pool, ("read", "write"), "every record compressed on write and "
                           "decompressed on read by the NAS's CPU")
    if prop == "atime" and s == "on" and p == "off":
        return DatasetCost(prop, share, pool, pool, ("read",), "every read also writes the file's access time")
    return None


def dataset_costs(facts: Facts) -> list[DatasetCost]:
    """The share dataset's properties costlier than the pool measurement's, in SPEED_PROPERTIES' order."""
    pool, share = facts.pool_dataset_properties, facts.smb_dataset_properties
    found = []
    for prop in ("recordsize", "compression", "atime", "sync", "dedup"):
        if prop in pool and prop in share and (cost := _cost(prop, share[prop], pool[prop])) is not None:
            found.append(cost)
    return found
