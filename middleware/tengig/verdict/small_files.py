"""The verdict's small-file line, from the measured facts only (pure): how many files a second the share takes
at the smallest size measured, beside the desktop's own disk when it was measured, and what holds it back.

A small file costs round trips, not bandwidth: a copy creates the file, writes it and closes it, each a request
answered by the NAS (ROUND_TRIPS_PER_FILE at least). Where those round trips on the measured link explain
ROUND_TRIP_SHARE of a file's measured time, the link's latency is the cause; where smbd was busy through the
batch, smbd is; otherwise the time is spent in the NAS's or the desktop's own per-file work."""
from __future__ import annotations

from ..units import format_mb_s, format_size
from .models import Facts

ROUND_TRIPS_PER_FILE = 3  # create, write, close: each a request the NAS answers before the next file
ROUND_TRIP_SHARE = 0.5  # those round trips explain at least this share of a file's time: latency holds it back
SMBD_BUSY_PERCENT = 85.0  # smbd this busy (% of one core): its one process per client is the limit


def files_per_s(value: float) -> str:
    """'310 files/s', '9,800 files/s': whole files, thousands grouped."""
    return f"{value:,.0f} files/s" if value >= 10 else f"{value:.2g} files/s"


def round_trip_share(facts: Facts) -> float | None:
    """The share of a file's time the round trips on the link explain (None: either unknown)."""
    if facts.round_trip_ms is None or not facts.small_file_ms:
        return None
    return ROUND_TRIPS_PER_FILE * facts.round_trip_ms / facts.small_file_ms


def latency_bound(facts: Facts) -> bool:
    share = round_trip_share(facts)
    return share is not None and share >= ROUND_TRIP_SHARE


def smbd_busy(facts: Facts) -> bool:
    cpu = facts.small_files_smbd_cpu_percent
    return cpu is not None and cpu >= SMBD_BUSY_PERCENT


def small_files_line(facts: Facts) -> str | None:
    """'copying 4 KiB files: 310 files/s (1.27 MB/s) vs 9,800 files/s on your own disk: per-file round trips
    (0.80 ms each on this link), not bandwidth, hold it back'; None: no small files measured."""
    if facts.small_file_size is None or not facts.small_files_per_s:
        return None
    rate = facts.small_files_per_s
    line = (f"copying {format_size(facts.small_file_size)} files: {files_per_s(rate)} "
            f"({format_mb_s(rate * facts.small_file_size)})")
    if facts.small_files_local_per_s:
        line += f" vs {files_per_s(facts.small_files_local_per_s)} on your own disk"
    if latency_bound(facts):
        return line + (f": per-file round trips ({facts.round_trip_ms:.2f} ms each on this link), not bandwidth, "
                       "hold it back")
    if smbd_busy(facts):
        return line + (f": smbd's per-file work ({facts.small_files_smbd_cpu_percent:.0f}% of one core), not "
                       "bandwidth, holds it back")
    if facts.small_file_ms is not None:
        rtt = f"; the link's round trip is {facts.round_trip_ms:.2f} ms" if facts.round_trip_ms is not None else ""
        return line + (f": {facts.small_file_ms:.2f} ms per file{rtt}: per-file work on the NAS or this desktop, "
                       "not bandwidth, holds it back")
    return line
