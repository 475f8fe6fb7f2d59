"""What each disk of the pool did while fio ran (the scaling phase's windows): `zpool iostat -v` in 1 s
intervals beside the run (with -l, OpenZFS's average waits; zfs-fuse has no -l), and on Linux the kernel's
own counters of each member device (/proc/diskstats) read just before and after: its busy share and its
average wait per I/O. Either may be missing (a FreeBSD NAS has no /proc/diskstats; a member named by a
path the kernel lists under another name); what is missing is left out, never guessed."""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from ...errors import TengigError
from ..context import BenchContext
from ..parse.diskstats_parse import DiskCounters, parse_diskstats, window
from ..parse.zpool_iostat_parse import IostatRow, parse_zpool_iostat

T = 30


class MemberLoad(BaseModel):
    name: str = Field(description="The member as zpool names it (e.g. sdc, loop1).")
    read_bytes_per_s: float | None = Field(None, description="zpool iostat's average over the windows, bytes/s.")
    write_bytes_per_s: float | None = None
    busy_percent: float | None = Field(None, description="Share of the windows the device was busy, % "
                                       "(/proc/diskstats).")
    wait_ms: float | None = Field(None, description="Average wait per I/O, queued and on the disk, ms.")
    wait_source: str | None = Field(None, description="Where wait_ms comes from: zpool iostat -l or /proc/diskstats.")


@dataclass
class _Totals:
    seconds: float = 0.0
    ios: dict[str, int] = field(default_factory=dict)
    spent_ms: dict[str, float] = field(default_factory=dict)
    busy_ms: dict[str, float] = field(default_factory=dict)
    rows: dict[str, list[IostatRow]] = field(default_factory=dict)


@dataclass
class MemberSampler:
    """Sums what the members did over several windows (one per fio run) of one pool on one host."""

    ctx: BenchContext
    host: str
    pool: str
    latency: bool | None = None  # zpool iostat -l works here (probed once)
    names: list[str] = field(default_factory=list)  # the members, as zpool iostat -v lists them
    totals: _Totals = field(default_factory=_Totals)

    def _iostat_argv(self) -> list[str]:
        return ["zpool", "iostat", "-v", *(["-l"] if self.latency else []), self.pool, "1", "2"]

    def probe(self) -> None:
        """Once: whether -l works here, and the members' names."""
        if self.latency is not None:
            return
        for latency in (True, False):
            argv = ["zpool", "iostat", "-v", *(["-l"] if latency else []), self.pool]
            done = self.ctx.run(self.host, argv, timeout=T, check=False, tool="zpool")
            if done.returncode == 0:
                try:
                    reports = parse_zpool_iostat(done.stdout)
                except TengigError:
                    break
                self.latency, self.names = latency, [r.name for r in reports[0].leaves]
                return
        self.latency = False

    def _diskstats(self) -> dict[str, DiskCounters] | None:
        done = self.ctx.run(self.host, ["cat", "/proc/diskstats"], timeout=T, check=False, record=False, tool="cat")
        try:
            return parse_diskstats(done.stdout) if done.returncode == 0 else None
        except TengigError:
            return None

    @contextmanager
    def window(self) -> Iterator[None]:
        """Around one fio run: iostat intervals beside it, diskstats before and after."""
        self.probe()
        stop = threading.Event()
        reports: list = []

        def loop() -> None:
            while not stop.is_set():
                try:
                    done = self.ctx.run(self.host, self._iostat_argv(), timeout=T, check=False, record=False,
                                        tool="zpool")
                    if done.returncode == 0:
                        reports.extend(parse_zpool_iostat(done.stdout)[1:])  # the first: since import
                except TengigError:
                    return

        before, started = self._diskstats(), time.monotonic()
        sampler = threading.Thread(target=loop, daemon=True)
        sampler.start()
        try:
            yield
        finally:
            seconds = time.monotonic() - started
            after = self._diskstats()
            stop.set()
            sampler.join(T)
            self._add(reports, before, after, seconds)

    def _add(self, reports: list, before, after, seconds: float) -> None:
        t = self.totals
        t.seconds += seconds
        for report in reports:
            for row in report.leaves:
                t.rows.setdefault(row.name, []).append(row)
        if before is None or after is None:
            return
        for name in self.names:
            dev = os.path.basename(name)
            if dev in before and dev in after:
                w = window(before[dev], after[dev], seconds)
                t.ios[name] = t.ios.get(name, 0) + w.ios
                t.spent_ms[name] = t.spent_ms.get(name, 0.0) + (w.wait_ms or 0.0) * w.ios
                t.busy_ms[name] = t.busy_ms.get(name, 0.0) + w.busy_percent * seconds * 10

    def loads(self) -> list[MemberLoad]:
        t = self.totals
        out = []
        for name in self.names:
            rows = t.rows.get(name, [])
            load = MemberLoad(name=name)
            if rows:
                load.read_bytes_per_s = sum(r.read_bytes_per_s for r in rows) / len(rows)
                load.write_bytes_per_s = sum(r.write_bytes_per_s for r in rows) / len(rows)
            waits = [w for r in rows for w in (r.total_wait_read_ms, r.total_wait_write_ms) if w is not None]
            if waits:
                load.wait_ms, load.wait_source = sum(waits) / len(waits), "zpool iostat -l"
            if t.ios.get(name):
                if load.wait_ms is None:
                    load.wait_ms, load.wait_source = t.spent_ms[name] / t.ios[name], "/proc/diskstats"
            if name in t.busy_ms and t.seconds > 0:
                load.busy_percent = min(100.0, t.busy_ms[name] / (10 * t.seconds))
            out.append(load)
        return out
