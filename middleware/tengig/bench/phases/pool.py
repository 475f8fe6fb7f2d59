"""Pool benchmark: fio on a scratch dataset made for the run and always removed afterwards.

Honest by construction (docs/physics.md §6):
- the ARC is kept out of the reads with files of a bounded size (bench/phases/cache_policy.py: written with
  primarycache=metadata, each read once; only where that property cannot be set, files of 2 x the ARC), and
  the run is refused before writing anything if the files would fill the pool past 80%;
- data is incompressible (fio's random buffers, refilled) on a dataset with compression off, and the
  dataset's compressratio is checked after the writes;
- before every read the host's page cache is dropped where ZFS reads pass through one (Linux; FreeBSD has
  none in a ZFS read's path: systems/host_os.py), and the ARC hit ratio of each read is measured from the
  NAS's arcstats: a sequential read that the ARC served fails the run instead of reporting RAM. Where the
  ARC's counters cannot be read (TrueNAS's app in a container that does not show the host's kstat), the
  run goes on only with uncached writes (which need no ARC size), and its result names the ARC's size and
  hits as unknown, with where it looked: never a zero;
- fio's ioengine is the NAS OS's asynchronous one: libaio on Linux, posixaio on FreeBSD;
- every repeat has its own file (run i writes file i, and later reads it once): re-reading one file
  lets the ARC promote its blocks to the MFU list, and measured on the lab, three reads of one file
  2.5 x the ARC went 0% -> 16% -> 31% hits and 340 -> 813 MB/s: the cache, not the pool;
- every write ends with fio's fsync (end_fsync), so a read phase never competes with the pool writing back
  what the write phase left in RAM (SMB copies have no such fsync: bench/join/joined.py waits for the pool);
- the random tests' file is written in full before they run: a file fio's random writes left sparse would
  read its holes from nowhere (and fio would lay it out inside the timed read);
- tests run one after another (never concurrently), each repeated, reported as median and CV, and a test
  stops repeating once more runs could not change the verdict (bench/stats.settled, as the SMB copies);
- in quick each sequential run stops after seq_seconds or at its file's size (fio --runtime) and each read
  reads what its write wrote: short runs, repeated until they agree. The random tests' file is written first,
  and its speed makes the runs of a slow pool longer, to MIN_FILE (below it a figure is mostly ramp-up). Only
  with uncached writes: a file that keeps the ARC out by its size must be written and read whole;
- a sweep removes scratch datasets an earlier crashed run left behind (found by their user property).
"""
from __future__ import annotations

import math
import os
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import BenchRefused, ToolOutputError
from ...units import MiB, format_size
from ...verdict.models import Ceiling
from .arc import ArcDelta, arc_for_run, delta
from .cache_policy import MAX_SEQ_READ_HIT_RATIO, MIN_FILE, CachePolicy, file_size, keep_arc_out, reading
from ..context import BenchContext
from ..leftovers import remove_scratch, sweep_scratch
from ..parse.fio_parse import parse_fio_json, require_io
from .pool_presets import CEILING_TEST, PRESETS, SEQ1M_Q8T1, PoolPreset, PoolTest, PresetName
from .scaling import MEMBER_READ_MAX, ScalingMode, ScalingResult, run_scaling
from ...backends.scratch import MAX_FILL, ScratchStorage, speed_properties
from ..stats import Repeated, Threshold, settled, summarize
from ...backends.host_os import HostOs, all_dropped

MAX_COMPRESSRATIO = 1.02
TEST_FILE = "tengig-pool-{}.dat"  # one per repeat of a sequential test
RANDOM_FILE = "tengig-pool-random.dat"  # the random tests' one file (uncached writes)
FLOOR_MARGIN = 1.1  # a slow pool's runs last long enough for MIN_FILE at its measured speed, and 10% more


class PoolBenchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pool: str = Field(description="ZFS pool to measure, e.g. 'tank'.")
    preset: PresetName = Field("quick", description="quick: SEQ1M Q8T1 + RND4K Q32T1, 3 runs; full: all four, 5 runs.")
    repeats: int | None = Field(None, ge=1, le=20, description="Override the preset's runs per test.")
    working_set: int | None = Field(
        None, gt=0, description="Test file size, bytes (default: the preset's; at least 64 MiB, and at least 2 x "
        "the ARC where the ARC cannot be kept out by uncached writes).")
    ioengine: Literal["libaio", "posixaio", "psync"] | None = Field(
        None, description="fio ioengine (default: the NAS OS's own, libaio on Linux and posixaio on FreeBSD).")
    scaling: ScalingMode = Field("auto", description="The thread sweep (SEQ1M at 1, 2, 4 ... threads up to the "
                                 "NAS's cores, with each pool member's load): on, off, only (the sweep alone), or "
                                 "auto (on in full, off in quick).")
    member_reads: bool = Field(False, description="With the sweep: also read each pool member alone, raw and "
                               "read-only (it touches every disk; member_read_bytes each).")
    member_read_bytes: int = Field(256 * MiB, ge=16 * MiB, le=MEMBER_READ_MAX,
                                   description="Bytes read from each member with member_reads.")


class PoolPhase(BaseModel):
    test: str = Field(description="CrystalDiskMark name, e.g. 'SEQ1M Q8T1'.")
    key: str
    direction: Literal["read", "write"]
    bytes_per_s: Repeated = Field(description="Throughput per run, bytes/s (fio's bytes / fio's runtime).")
    iops: Repeated
    mean_latency_us: float | None = Field(description="Median over runs of the mean completion latency, µs.")
    bytes_moved: list[int] = Field(description="Bytes fio moved in each run.")
    arc_hit_ratio: float | None = Field(None, description="ARC hits / (hits + misses) of data reads (of all "
                                        "reads where the ARC does not count them apart) during the reads (None "
                                        "for writes).")
    arc_hits: int | None = None
    arc_misses: int | None = None
    page_cache_dropped: bool | None = Field(None, description="Reads: the host page cache was dropped before each "
                                            "run; null for writes, and on FreeBSD, whose ZFS reads pass through no "
                                            "page cache (the ARC is kept out by the cache policy and counted).")


class PoolBenchResult(BaseModel):
    pool: str
    dataset: str = Field(description="The scratch dataset the run used (removed afterwards).")
    preset: PresetName
    working_set_bytes: int
    arc_max_bytes: int | None = Field(description="The ARC's maximum size (c_max); None: not readable here (unknowns).")
    arc_source: str | None = Field(description="Where the ARC's counters were read; None: nowhere (unknowns).")
    unknowns: list[str] = Field(default_factory=list, description="What the NAS could not see of this run, each with "
                                "why (the ARC's counters in a container that does not show the host's kstat).")
    cache_policy: CachePolicy | None = Field(None, description="How the ARC was kept out of the reads.")
    bytes_written: int | None = Field(None, description="Bytes this run wrote to the pool: fio's writes and the "
                                      "random test file's layout.")
    recordsize_bytes: int
    dataset_properties: dict[str, str] = Field(default_factory=dict, description="The scratch dataset's properties "
                                               "that set how fast it takes data (backends/scratch.SPEED_PROPERTIES, "
                                               "as zfs prints them), to compare with the share's; empty: not read.")
    compressratio: float = Field(description="Of the scratch dataset after the writes (must be ~1.00).")
    phases: list[PoolPhase]
    scaling: ScalingResult | None = Field(None, description="The thread sweep and each member's load, when run.")
    swept: list[str] = Field(default_factory=list, description="Orphaned scratch datasets found and removed first.")

    def phase(self, key: str, direction: str) -> PoolPhase | None:
        return next((p for p in self.phases if p.key == key and p.direction == direction), None)

    def ceilings(self) -> list[Ceiling]:
        """Per direction: the thread sweep's best step when it ran (the thread count the NAS serves best,
        named in the label), else SEQ1M Q8T1."""
        out = []
        for direction in ("read", "write"):
            p = self.phase(CEILING_TEST.key, direction)
            sweep = self.scaling.sweep(direction) if self.scaling else None
            if sweep:
                best = next(s for s in sweep.steps if s.threads == sweep.best_threads)
                tried = ", ".join(str(s.threads) for s in sweep.steps)
                out.append(Ceiling(component="pool", direction=direction, bytes_per_s=best.bytes_per_s,
                                   provenance="measured", label=f"pool {self.pool} fio SEQ1M Q8T{best.threads} "
                                   f"{direction} ({best.threads} thread(s), the best of {tried})"))
            elif p:
                out.append(Ceiling(component="pool", direction=direction, bytes_per_s=p.bytes_per_s.median,
                                   provenance="measured", label=f"pool {self.pool} fio {p.test} {direction}",
                                   runs=p.bytes_per_s.values))
        return out


def pool_facts(pool: PoolBenchResult | None) -> dict[str, Any]:
    """The scratch dataset and what the thread sweep found, as the advice rules (verdict.models.Facts) read them:
    for each client's verdict and the aggregate one alike, since the pool serves them all (no sweep: nothing
    known of it)."""
    if pool is None:
        return {}
    dataset = {"pool_dataset": pool.dataset, "pool_dataset_properties": pool.dataset_properties}
    scaling = pool.scaling
    if scaling is None:
        return dataset
    one = {s.direction: s.steps[0].bytes_per_s for s in scaling.sweeps if s.steps and s.steps[0].threads == 1}
    return dataset | {
        "pool_member_wait_ms": {m.name: m.wait_ms for m in scaling.members if m.wait_ms is not None},
        "pool_member_busy_percent": {m.name: m.busy_percent for m in scaling.members if m.busy_percent is not None},
        "pool_one_thread_bps": one,
        "pool_best_thread_bps": {s.direction: s.best_bytes_per_s for s in scaling.sweeps},
        "pool_best_threads": {s.direction: s.best_threads for s in scaling.sweeps},
    }


def fio_argv(test: PoolTest, direction: str, path: str, size: int, preset: PoolPreset, ioengine: str, *,
             seconds: float | None = None) -> list[str]:
    """One fio job. ``seconds`` (sequential tests): stop after that long or at ``size``, whichever comes first
    (fio --runtime without --time_based: never past the file, so the space rule still holds)."""
    rw = ("" if test.sequential else "rand") + direction
    # --thread: fio's jobs as threads of its one process (as processes they call setsid; a timeout's or an
    # abort's KILL reaches them through the runner's tree kill, process_tree.py, and threads leave none to find)
    argv = ["fio", "--thread", f"--name={test.key}-{direction}", f"--filename={path}", f"--rw={rw}",
            f"--bs={test.block_size}",
            f"--iodepth={test.queue_depth}", f"--numjobs={test.threads}", f"--ioengine={ioengine}",
            f"--size={size}", "--group_reporting", "--randrepeat=0", "--invalidate=1", "--output-format=json"]
    if direction == "write":
        argv += ["--refill_buffers", "--end_fsync=1"]  # incompressible, and on the pool before the clock stops
    if not test.sequential:
        argv += ["--time_based", f"--runtime={_fio_time(preset.random_seconds)}",
                 f"--ramp_time={_fio_time(preset.ramp_seconds)}"]
    elif seconds is not None:
        argv.append(f"--runtime={_fio_time(seconds)}")
    return argv


def _fio_time(seconds: float) -> str:
    """A duration as fio takes it: whole seconds bare ("5"), else in milliseconds ("500ms")."""
    return f"{seconds:.0f}" if float(seconds).is_integer() else f"{round(seconds * 1000)}ms"


def _timeout(test: PoolTest, size: int, preset: PoolPreset) -> float:
    if test.sequential:
        return 120 + size / (5 * MiB)  # even a 5 MB/s pool finishes
    return 120 + preset.random_seconds + preset.ramp_seconds


@dataclass(frozen=True)
class _Nas:
    """Where the pool is measured: the host's name, its OS (systems/host_os.py), fio's ioengine there, and
    whether its ARC counters are read around each read (False: they cannot be, the result says so)."""

    host: str
    os: HostOs
    ioengine: str
    count_arc: bool = True


def _fio(ctx: BenchContext, nas: _Nas, preset: PoolPreset, test: PoolTest, direction: str,
         path: str, size: int, *, what: str, seconds: float | None = None):
    """One fio run of ``test`` on ``path``, checked: its exit code, its JSON and the I/O it did."""
    done = ctx.run(nas.host, fio_argv(test, direction, path, size, preset, nas.ioengine, seconds=seconds),
                   timeout=_timeout(test, size, preset), check=False, tool="fio")
    jobs = parse_fio_json(done.stdout) if "{" in done.stdout else []
    if done.returncode != 0 or not jobs:
        detail = (done.stderr.strip().splitlines() or ["(no message)"])[-1][:300]
        for job in jobs:
            require_io(job, direction)  # names fio's errno when it gave one
        raise ToolOutputError(f"{what} failed (exit {done.returncode}): {detail}")
    return require_io(jobs[0], direction)


def _run_phase(ctx: BenchContext, nas: _Nas, preset: PoolPreset, test: PoolTest,
               direction: str, paths: list[str], sizes: list[int], *, adaptive: bool,
               against: list[Threshold] | None, seconds: float | None = None) -> PoolPhase:
    """Up to len(paths) runs, run i on paths[i] over its first sizes[i] bytes (``seconds``: or for that long,
    whichever ends first); ``adaptive``: fewer once they are enough (stats.settled, the rule the SMB copies
    stop by; ``against`` the figures the verdict compares this phase with)."""
    repeats = len(paths)
    enough = None
    speeds, iops, lats, moved = [], [], [], []
    arc_total = ArcDelta(hits=0, misses=0)
    dropped: bool | None = True
    for i in range(repeats):
        ctx.report(100 * i / repeats, f"pool {test.name} {direction} run {i + 1}/{repeats}")
        counted = direction == "read" and nas.count_arc
        if direction == "read":
            dropped = all_dropped(dropped, nas.os.drop_caches(ctx, nas.host))
        if counted:
            before = nas.os.read_arc(ctx, nas.host)
        io = _fio(ctx, nas, preset, test, direction, paths[i], sizes[i], what=f"fio {test.name} {direction}",
                  seconds=seconds)
        if counted:
            arc_total = arc_total + delta(before, nas.os.read_arc(ctx, nas.host))
        speeds.append(io.bytes_per_s)
        iops.append(io.iops)
        moved.append(io.bytes)
        if io.mean_latency_us is not None:
            lats.append(io.mean_latency_us)
        ctx.sample(phase=f"pool {test.name} {direction}", bytes_per_s=io.bytes_per_s, run=i + 1)
        if adaptive and (enough := settled(speeds, repeats, against)):
            break
    phase = PoolPhase(
        test=test.name, key=test.key, direction=direction,
        bytes_per_s=summarize(speeds, planned=repeats, stopped_because=enough),
        iops=summarize(iops),
        mean_latency_us=summarize(lats).median if lats else None, bytes_moved=moved,
    )
    if direction == "read":
        phase.page_cache_dropped = dropped
    if direction == "read" and nas.count_arc:
        phase.arc_hits, phase.arc_misses = arc_total.hits, arc_total.misses
        phase.arc_hit_ratio = arc_total.hit_ratio
        if test.sequential and (arc_total.hit_ratio or 0) > MAX_SEQ_READ_HIT_RATIO:
            raise BenchRefused(
                f"pool {test.name} read was served from the ARC (hit ratio {100 * arc_total.hit_ratio:.0f}% > "
                f"{100 * MAX_SEQ_READ_HIT_RATIO:.0f}%): it measured RAM, not the pool; use a larger working_set "
                "or shrink the ARC (zfs_arc_max)")
    return phase


def run_pool_bench(ctx: BenchContext, storage: ScratchStorage, host: str, req: PoolBenchRequest, *,
                   host_os: HostOs, default_size: int | None = None,
                   against: dict[str, list[Threshold]] | None = None) -> PoolBenchResult:
    """Measure `req.pool` on `host`, whose OS is ``host_os`` (its ARC counters, cache drop and fio ioengine).
    Raises if anything could not be measured. Its scratch dataset is removed at the end; one that cannot go yet
    (busy) is named in ``ctx.leftovers`` and removed by the next run, never fatal to the figures.
    ``default_size``: the system's file size when the request names none (else the preset's). ``against``:
    per direction, the figures the verdict will compare the ceiling test with (verdict/thresholds.py); a
    phase stops repeating once its median can no longer cross one, and in quick the tests the verdict does
    not use stop at two runs."""
    preset = PRESETS[req.preset]
    repeats = req.repeats or preset.repeats
    ctx.report(0, f"pool {req.pool}: looking for orphaned scratch datasets")
    swept = sweep_scratch(ctx, storage, req.pool)
    space = storage.space(req.pool)
    info = storage.create_scratch(req.pool, f"{int(time.time())}-{os.getpid()}")
    try:
        properties = speed_properties(storage, info.name)
        policy = keep_arc_out(storage, info.name)
        arc, unknowns = arc_for_run(host_os, ctx, host, policy)
        nas = _Nas(host, host_os, req.ioengine or host_os.fio_ioengine, count_arc=arc is not None)
        size = file_size(policy, arc.c_max if arc else 0, default_size or preset.working_set, req.working_set,
                         field="working_set")
        random_tests = any(not t.sequential for t in preset.tests)
        at_once = size * (repeats + (1 if policy.uncached and random_tests else 0))
        if space.fill_after(at_once) > MAX_FILL:
            raise BenchRefused(
                f"pool {req.pool} has {format_size(space.available)} free of {format_size(space.total)}; {repeats} "
                f"files of {format_size(size)} ({policy.note}) would fill it past {100 * MAX_FILL:.0f}%: free some "
                "space, use fewer repeats" + (" or a smaller working_set" if policy.uncached else
                                              ", or shrink the ARC (zfs_arc_max) before measuring"))
        root = info.mountpoint.rstrip("/")
        sequential = [f"{root}/{TEST_FILE.format(i)}" for i in range(repeats)]
        # uncached, the random tests share one file: no read of it stays in the ARC to warm the next
        random = [f"{root}/{RANDOM_FILE}"] * repeats if policy.uncached else sequential
        phases: list[PoolPhase] = []
        sweep = req.scaling in ("on", "only") or (req.scaling == "auto" and preset.name == "full")
        tests = [] if req.scaling == "only" else preset.tests
        steps = [(t, d) for t in tests for d in ("write", "read")]
        span = 90 if not sweep else (0 if not steps else 60)
        ratio = None
        written = sequential  # the sequential files the last write phase wrote
        written_sizes = [size] * repeats  # and the bytes of each (a read reads what its write wrote)
        laid_out, seconds = 0, None
        if policy.uncached and any(not t.sequential for t in tests):
            # the random tests' file first: its write is also the pool's speed, which sets how long quick's
            # sequential runs last (seq_seconds, or longer where that writes less than MIN_FILE)
            laid_out, rate = _lay_out(ctx.part(0, 5), nas, preset, random[0], size, preset.seq_seconds)
            seconds = sequential_seconds(preset.seq_seconds, rate, size)
        for n, (test, direction) in enumerate(steps):
            part = ctx.part(5 + span * n / len(steps), 5 + span * (n + 1) / len(steps))
            if test.sequential and direction == "read":
                paths, sizes = written, written_sizes  # each file the write phase wrote, read once, as written
            elif test.sequential:
                paths, sizes = sequential, [size] * repeats
                if policy.uncached:
                    ctx.run(host, ["rm", "-f", *paths], timeout=120, tool="rm")  # files a read left in the ARC
            elif policy.uncached:
                paths, sizes = random, [laid_out] * repeats
            else:
                paths, sizes = written, written_sizes
            if test == CEILING_TEST:
                phase_against = against.get(direction, []) if against is not None else None
            else:
                phase_against = [] if preset.name == "quick" else None
            with reading(storage, policy, sequential=test.sequential) if direction == "read" else nullcontext():
                phases.append(_run_phase(part, nas, preset, test, direction, paths, sizes,
                                         adaptive=req.repeats is None, against=phase_against,
                                         seconds=seconds if test.sequential else None))
            if direction == "write" and test.sequential:
                written = paths[:len(phases[-1].bytes_moved)]
                written_sizes = [moved // test.block_size * test.block_size for moved in phases[-1].bytes_moved]
            if direction == "write" and ratio is None:
                ratio = storage.compressratio(info.name)
                if ratio > MAX_COMPRESSRATIO:
                    raise ToolOutputError(
                        f"the test data compressed {ratio:.2f}x on {info.name}: the pool wrote less than fio "
                        "reported, so the write figure would be inflated")
        scaling = None
        if sweep:
            ctx.run(host, ["rm", "-f", *sorted(set(sequential + random))], timeout=120, tool="rm")  # room for it
            scaling = run_scaling(ctx.part(5 + span, 95), host=host, pool=req.pool, storage=storage, policy=policy,
                                  root=root, host_os=host_os, ioengine=nas.ioengine, bytes_per_step=size,
                                  member_reads=req.member_reads, member_read_bytes=req.member_read_bytes,
                                  count_arc=nas.count_arc)
        ctx.report(100, f"pool {req.pool} done")
        return PoolBenchResult(
            pool=req.pool, dataset=info.name, preset=req.preset, working_set_bytes=size,
            arc_max_bytes=arc.c_max if arc else None, arc_source=arc.source if arc else None, unknowns=unknowns,
            recordsize_bytes=info.recordsize, dataset_properties=properties, compressratio=ratio or 1.0,
            phases=phases,
            swept=swept, cache_policy=policy, scaling=scaling,
            bytes_written=laid_out + sum(sum(p.bytes_moved) for p in phases if p.direction == "write")
            + (scaling.bytes_written if scaling else 0),
        )
    finally:
        remove_scratch(ctx, storage, info.name)  # one still busy is named in the report, never fatal


def sequential_seconds(seconds: float | None, write_bytes_per_s: float, size: int) -> float | None:
    """How long each sequential run may last: ``seconds`` (the preset's), or longer where a pool writing
    ``write_bytes_per_s`` would write less than MIN_FILE (or ``size``, if smaller) in it, with FLOOR_MARGIN:
    below that a sequential figure is mostly ramp-up. None: whole files."""
    if seconds is None:
        return None
    needed = FLOOR_MARGIN * min(MIN_FILE, size) / write_bytes_per_s
    return max(seconds, math.ceil(10 * needed) / 10)  # whole tenths of a second


def _lay_out(ctx: BenchContext, nas: _Nas, preset: PoolPreset, path: str, size: int,
             seconds: float | None) -> tuple[int, float]:
    """Write the random tests' file, sequentially and uncached (not reported as a figure): in full, or
    (``seconds``) as much of ``size`` as that long writes. Returns the bytes written, a whole number of MiB,
    over which the random tests then run (a hole past them would read from nowhere), and fio's write speed."""
    ctx.report(0, f"writing the random tests' file (up to {format_size(size)})")
    io = _fio(ctx, nas, preset, SEQ1M_Q8T1, "write", path, size, what="fio writing the random tests' file",
              seconds=seconds)
    laid_out = io.bytes // SEQ1M_Q8T1.block_size * SEQ1M_Q8T1.block_size
    if laid_out < (size if seconds is None else SEQ1M_Q8T1.block_size):
        raise ToolOutputError(f"fio wrote {format_size(io.bytes)} of the random tests' {format_size(size)} file")
    return laid_out, io.bytes_per_s
