"""Parse `zpool iostat -v [-l] POOL [interval [count]]` (pure): every report it printed, each with the pool's
row and a row per vdev, leaves (the disks, "members") told from the vdevs that group them (mirror-0, raidz1-0)
by their indentation.

Two formats: zfs-fuse's (capacity, operations, bandwidth; it has no -l) and OpenZFS's, whose -l adds the
average latencies total_wait, disk_wait, syncq_wait and asyncq_wait (read and write each), then scrub, trim and
rebuild waits (zpool-iostat(8)). Sizes are zpool's binary units (84.7M = 84.7 MiB), times its ns/us/ms/s,
'-' is no figure. The first report of a run with an interval is the average since import; a caller that
samples a window keeps the reports after it."""
from __future__ import annotations

import re

from pydantic import BaseModel, Field

from ...errors import ToolOutputError

_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([KMGTPE]?)$")
_TIME = re.compile(r"^(\d+(?:\.\d+)?)(ns|us|ms|s)$")
_SCALE = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50, "E": 2**60}
_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# zpool iostat -v lists the pool's special vdevs under these words, alone on their line
SECTIONS = {"logs", "cache", "spares", "special", "dedup"}


class IostatRow(BaseModel):
    name: str
    depth: int = Field(description="Indentation in 2-space steps: 0 the pool, 1 a top-level vdev, 2 its disks.")
    leaf: bool = Field(False, description="A disk: no row below it is indented deeper.")
    read_ops: float
    write_ops: float
    read_bytes_per_s: float
    write_bytes_per_s: float
    total_wait_read_ms: float | None = Field(None, description="-l: average time a read spent queued and on "
                                             "the disk, ms (OpenZFS only).")
    total_wait_write_ms: float | None = None
    disk_wait_read_ms: float | None = Field(None, description="-l: average time a read spent on the disk, ms.")
    disk_wait_write_ms: float | None = None


class IostatReport(BaseModel):
    rows: list[IostatRow]

    @property
    def leaves(self) -> list[IostatRow]:
        return [r for r in self.rows if r.leaf]


def _size(text: str) -> float:
    if text == "-":
        return 0.0
    m = _SIZE.match(text)
    if not m:
        raise ToolOutputError(f"zpool iostat: {text!r} is not a size")
    return float(m.group(1)) * _SCALE[m.group(2)]


def _ms(text: str) -> float | None:
    if text == "-":
        return None
    m = _TIME.match(text)
    if not m:
        raise ToolOutputError(f"zpool iostat: {text!r} is not a time")
    return float(m.group(1)) * _SECONDS[m.group(2)] * 1000


def _row(line: str, latency: bool) -> IostatRow:
    indent = len(line) - len(line.lstrip(" "))
    cols = line.split()
    need = 7 + (8 if latency else 0)
    if len(cols) < need:
        raise ToolOutputError(f"zpool iostat: a row with {len(cols)} columns, {need} expected: {line.strip()!r}")
    row = IostatRow(name=cols[0], depth=indent // 2, read_ops=_size(cols[3]), write_ops=_size(cols[4]),
                    read_bytes_per_s=_size(cols[5]), write_bytes_per_s=_size(cols[6]))
    if latency:
        row.total_wait_read_ms, row.total_wait_write_ms = _ms(cols[7]), _ms(cols[8])
        row.disk_wait_read_ms, row.disk_wait_write_ms = _ms(cols[9]), _ms(cols[10])
    return row


def _mark_leaves(rows: list[IostatRow]) -> list[IostatRow]:
    for i, row in enumerate(rows):
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        row.leaf = row.depth > 0 and (nxt is None or nxt.depth <= row.depth)
    return rows


def parse_zpool_iostat(text: str) -> list[IostatReport]:
    """Every report in ``text``, in order. A report is the rows between two dashed lines after a header."""
    reports: list[IostatReport] = []
    latency = False
    rows: list[IostatRow] | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.lstrip().startswith("capacity"):
            latency = "total_wait" in line
            continue
        if line.startswith("pool ") or line.startswith("pool\t"):
            continue
        if set(line.strip()) <= {"-", " "}:
            if rows is None:
                rows = []
            else:
                if rows:
                    reports.append(IostatReport(rows=_mark_leaves(rows)))
                rows = None
            continue
        if rows is None:
            continue  # a note outside a report
        if line.strip() in SECTIONS:
            continue
        rows.append(_row(line, latency))
    if not reports:
        raise ToolOutputError(f"zpool iostat printed no report: {text.strip()[:200] or '(nothing)'}")
    return reports
