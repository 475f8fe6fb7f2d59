"""Parse Linux's /proc/diskstats (pure): per block device, the kernel's counters of completed I/Os, the
milliseconds they took, and the milliseconds the device was busy (Documentation/admin-guide/iostats.rst:
fields 4, 7, 8, 11 and 13 of each line after major, minor and name). Two readings around a window give a
device's busy share of the window and its average wait per I/O, as iostat(1)'s %util and await do."""
from __future__ import annotations

from pydantic import BaseModel, Field

from ...errors import ToolOutputError


class DiskCounters(BaseModel):
    reads: int
    read_ms: int = Field(description="Milliseconds spent on reads, summed over reads (queued and on the disk).")
    writes: int
    write_ms: int
    busy_ms: int = Field(description="Milliseconds the device had I/O in flight.")


class DiskWindow(BaseModel):
    """One device over a window: what two readings of its counters say."""

    ios: int
    busy_percent: float = Field(description="Share of the window the device had I/O in flight, %.")
    wait_ms: float | None = Field(description="Average time per completed I/O, queued and on the disk, ms "
                                  "(None: no I/O completed).")


def parse_diskstats(text: str) -> dict[str, DiskCounters]:
    out = {}
    for line in text.splitlines():
        cols = line.split()
        if len(cols) < 14:
            continue
        try:
            out[cols[2]] = DiskCounters(reads=int(cols[3]), read_ms=int(cols[6]), writes=int(cols[7]),
                                        write_ms=int(cols[10]), busy_ms=int(cols[12]))
        except ValueError as exc:
            raise ToolOutputError(f"/proc/diskstats: a line that is not counters: {line.strip()!r}") from exc
    if not out:
        raise ToolOutputError("/proc/diskstats lists no device")
    return out


def window(before: DiskCounters, after: DiskCounters, seconds: float) -> DiskWindow:
    ios = (after.reads - before.reads) + (after.writes - before.writes)
    spent = (after.read_ms - before.read_ms) + (after.write_ms - before.write_ms)
    busy = (after.busy_ms - before.busy_ms) / (10 * seconds) if seconds > 0 else 0.0
    return DiskWindow(ios=ios, busy_percent=min(100.0, busy), wait_ms=spent / ios if ios > 0 else None)
