"""The scaling phase: SEQ1M (queue depth 8 per thread) read and write at 1, 2, 4 ... threads up to the NAS's
cores (fio numjobs, group_reporting), each thread with its own file, on the pool run's scratch dataset and
cache policy (bench/phases/cache_policy.py: files written uncached, each read once, the page cache dropped
before each read, the ARC's hits counted). A direction stops when a step adds less than MIN_GAIN over the
one before, or at the cores, and says which. Beside every fio run, what each member did
(bench/phases/pool_members.py); the member whose wait or busy share stands out is named
(verdict/members.py). The pool's ceiling in the verdict is the best step, and says its thread count."""
from __future__ import annotations

from contextlib import nullcontext
from typing import Literal

from pydantic import BaseModel, Field

from ...errors import BenchRefused, ToolOutputError, ValidationError
from ...units import MiB, format_size
from ...verdict.members import dragging_text
from ..context import BenchContext
from ..parse.fio_parse import parse_fio_json, require_io
from .arc import ArcDelta, delta
from .cache_policy import MAX_SEQ_READ_HIT_RATIO, CachePolicy, reading
from .pool_members import MemberLoad, MemberSampler

ScalingMode = Literal["auto", "on", "off", "only"]
Direction = Literal["read", "write"]
MIN_GAIN = 0.05  # a step that adds less than 5% over the one before ends the sweep
MAX_THREADS = 64
BLOCK = MiB
QUEUE_DEPTH = 8
MIN_PER_THREAD = 16 * MiB  # below this a thread's file is mostly ramp-up
MEMBER_READ_MAX = 1024 * MiB


class ScalingStep(BaseModel):
    threads: int
    bytes_per_s: float = Field(description="fio's bytes / runtime over all threads, bytes/s.")
    bytes: int
    gain_percent: float | None = Field(None, description="Over the step before, % (None: the first step).")
    arc_hit_ratio: float | None = Field(None, description="Reads: ARC hits / (hits + misses) of data reads (of "
                                        "all reads where the ARC does not count them apart) during the step.")


class ScalingSweep(BaseModel):
    direction: Direction
    steps: list[ScalingStep]
    best_threads: int = Field(description="The step with the most bytes/s: the thread count the verdict uses.")
    best_bytes_per_s: float
    stopped: str = Field(description="Why the sweep went no further, e.g. '4 threads: +3.1% over 2: stopped'.")


class MemberRead(BaseModel):
    name: str
    device: str
    bytes: int
    bytes_per_s: float


class ScalingResult(BaseModel):
    test: str = Field("SEQ1M Q8", description="fio's test per thread: 1 MiB blocks, queue depth 8.")
    cores: int = Field(description="The NAS's online CPUs: the most threads the sweep runs.")
    bytes_per_step: int = Field(description="Bytes each step moves, split over its threads.")
    sweeps: list[ScalingSweep]
    members: list[MemberLoad] = Field(default_factory=list, description="What each pool member did over the "
                                      "sweep's windows.")
    dragging: str | None = Field(None, description="The member that stands out, e.g. 'sdc: 41.0 ms average "
                                 "wait, the others 6.0 ms'; None: none does (or too little is known).")
    member_reads: list[MemberRead] = Field(default_factory=list, description="Each member read alone, raw, "
                                           "only when asked (member_reads).")
    bytes_written: int = 0

    def sweep(self, direction: str) -> ScalingSweep | None:
        return next((s for s in self.sweeps if s.direction == direction), None)


def thread_counts(cores: int) -> list[int]:
    """1, 2, 4 ... up to ``cores`` (and ``cores`` itself last when it is no power of two), at most MAX_THREADS."""
    top = max(1, min(cores, MAX_THREADS))
    out, n = [], 1
    while n <= top:
        out.append(n)
        n *= 2
    if out[-1] != top:
        out.append(top)
    return out


def stop_reason(steps: list[ScalingStep], counts: list[int]) -> str | None:
    """Why the sweep ends after its last step, or None to go on."""
    last = steps[-1]
    if len(steps) > 1 and last.gain_percent is not None and last.gain_percent < 100 * MIN_GAIN:
        return f"{last.threads} threads: {last.gain_percent:+.1f}% over {steps[-2].threads}: stopped"
    if last.threads == counts[-1]:
        return f"{last.threads} thread(s): the NAS's {counts[-1]} cores, the most it runs: stopped"
    return None


def fio_scaling_argv(direction: str, directory: str, threads: int, per_thread: int, ioengine: str) -> list[str]:
    # one job name for both directions: the read's threads find the files the write's left (fio names them
    # NAME.THREAD.0), so the read lays out nothing of its own
    argv = ["fio", "--thread", "--name=scale", f"--directory={directory}", f"--rw={direction}", f"--bs={BLOCK}",
            f"--iodepth={QUEUE_DEPTH}", f"--numjobs={threads}", f"--ioengine={ioengine}", f"--size={per_thread}",
            "--group_reporting", "--invalidate=1", "--output-format=json"]
    if direction == "write":
        argv += ["--refill_buffers", "--end_fsync=1"]
    return argv


def _cores(ctx: BenchContext, host: str) -> int:
    done = ctx.run(host, ["getconf", "_NPROCESSORS_ONLN"], timeout=30, check=False, tool="getconf")
    try:
        return max(1, int(done.stdout.strip()))
    except ValueError:
        return 1


def run_scaling(ctx: BenchContext, *, host: str, pool: str, storage, policy: CachePolicy, root: str,
                host_os, ioengine: str, bytes_per_step: int, member_reads: bool = False,
                member_read_bytes: int = 256 * MiB, max_threads: int | None = None,
                count_arc: bool = True) -> ScalingResult:
    """The sweep on ``root`` (a directory of the run's scratch dataset, whose cache policy is ``policy``);
    ``count_arc`` False: the ARC's hits are not readable here, and each step's hit ratio is left None."""
    cores = _cores(ctx, host)
    counts = thread_counts(min(cores, max_threads or MAX_THREADS))
    sampler = MemberSampler(ctx, host, pool)
    sampler.probe()  # before any window: whether -l works, and the members
    steps: dict[str, list[ScalingStep]] = {"write": [], "read": []}
    stopped: dict[str, str] = {}
    written = 0
    for n, threads in enumerate(counts):
        if len(stopped) == 2:
            break
        part = ctx.part(100 * n / len(counts), 100 * (n + 1) / len(counts))
        per_thread = max(MIN_PER_THREAD, bytes_per_step // threads // MiB * MiB)
        directory = f"{root}/scale-{threads}"
        ctx.run(host, ["mkdir", "-p", directory], timeout=30, tool="mkdir")
        try:
            for direction in ("write", "read"):
                if direction in stopped and direction == "read":
                    continue
                part.report(0 if direction == "write" else 50, f"pool scaling {direction} {threads} thread(s)")
                measure = direction not in stopped
                step = _step(part, host, host_os, storage, policy, sampler if measure else None, direction,
                             directory, threads, per_thread, ioengine, count_arc)
                if direction == "write":
                    written += step.bytes
                if not measure:
                    continue
                prev = steps[direction][-1] if steps[direction] else None
                if prev is not None and prev.bytes_per_s > 0:
                    step.gain_percent = 100 * (step.bytes_per_s / prev.bytes_per_s - 1)
                steps[direction].append(step)
                ctx.sample(phase=f"pool scaling {direction}", bytes_per_s=step.bytes_per_s, threads=threads)
                if (why := stop_reason(steps[direction], counts)) is not None:
                    stopped[direction] = why
        finally:
            ctx.run(host, ["rm", "-rf", directory], timeout=120, tool="rm")
    sweeps = []
    for direction in ("read", "write"):
        got = steps[direction]
        if got:
            best = max(got, key=lambda s: s.bytes_per_s)
            sweeps.append(ScalingSweep(direction=direction, steps=got, best_threads=best.threads,
                                       best_bytes_per_s=best.bytes_per_s, stopped=stopped.get(direction, "")))
    loads = sampler.loads()
    waits = {m.name: m.wait_ms for m in loads if m.wait_ms is not None}
    busy = {m.name: m.busy_percent for m in loads if m.busy_percent is not None}
    result = ScalingResult(cores=cores, bytes_per_step=bytes_per_step, sweeps=sweeps, members=loads,
                           dragging=dragging_text(waits, busy), bytes_written=written)
    if member_reads:
        result.member_reads = read_members(ctx, host, sampler.names, member_read_bytes, ioengine)
    return result


def _step(ctx: BenchContext, host: str, host_os, storage, policy: CachePolicy, sampler: MemberSampler | None,
          direction: str, directory: str, threads: int, per_thread: int, ioengine: str,
          count_arc: bool = True) -> ScalingStep:
    before = after = None
    argv = fio_scaling_argv(direction, directory, threads, per_thread, ioengine)
    # the ARC is read inside the primarycache switch: the switch's own metadata reads are no hits of the read
    with (reading(storage, policy, sequential=True) if direction == "read" else nullcontext()):
        if direction == "read":
            host_os.drop_caches(ctx, host)
        if direction == "read" and count_arc:
            before = host_os.read_arc(ctx, host)
        with (sampler.window() if sampler is not None else nullcontext()):
            done = ctx.run(host, argv, timeout=120 + threads * per_thread / (5 * MiB), check=False, tool="fio")
        if direction == "read" and count_arc:
            after = host_os.read_arc(ctx, host)
    jobs = parse_fio_json(done.stdout) if "{" in done.stdout else []
    if done.returncode != 0 or not jobs:
        detail = (done.stderr.strip().splitlines() or ["(no message)"])[-1][:300]
        raise ToolOutputError(f"fio scaling {direction} at {threads} thread(s) failed (exit {done.returncode}): "
                              f"{detail}")
    io = require_io(jobs[0], direction)
    step = ScalingStep(threads=threads, bytes_per_s=io.bytes_per_s, bytes=io.bytes)
    if before is not None and after is not None:
        arc: ArcDelta = delta(before, after)
        step.arc_hit_ratio = arc.hit_ratio
        if (arc.hit_ratio or 0) > MAX_SEQ_READ_HIT_RATIO:
            raise BenchRefused(
                f"pool scaling read at {threads} thread(s) was served from the ARC (hit ratio "
                f"{100 * arc.hit_ratio:.0f}%): it measured RAM, not the pool; use a larger working_set")
    return step


def _device_of(ctx: BenchContext, host: str, name: str) -> str:
    """The device node of a member as zpool names it: a path as it is; sdc -> /dev/sdc; SCALE's partition
    uuids under /dev/disk/by-partuuid, CORE's gptid labels under /dev/gptid."""
    candidates = [name] if name.startswith("/") else [f"/dev/{name}", f"/dev/disk/by-partuuid/{name}",
                                                      f"/dev/gptid/{name}"]
    for path in candidates:
        if ctx.run(host, ["test", "-e", path], timeout=30, check=False, tool="test").returncode == 0:
            return path
    raise ToolOutputError(f"pool member {name}: no device node at {', '.join(candidates)}: member_reads cannot "
                          "read it alone; leave member_reads off")


def read_members(ctx: BenchContext, host: str, names: list[str], size: int, ioengine: str) -> list[MemberRead]:
    """Each member read alone, raw and read-only (fio --readonly, direct I/O), ``size`` bytes from its start,
    one after another: what each disk gives with nothing else running. Only when the user asks."""
    if size > MEMBER_READ_MAX:
        raise ValidationError.one("member_read_bytes", f"{format_size(size)} is more than the "
                                  f"{format_size(MEMBER_READ_MAX)} tengig reads from each disk")
    out = []
    for name in names:
        device = _device_of(ctx, host, name)
        argv = ["fio", "--thread", "--name=member", f"--filename={device}", "--readonly", "--rw=read",
                f"--bs={BLOCK}", f"--iodepth={QUEUE_DEPTH}", "--direct=1", f"--ioengine={ioengine}", f"--size={size}",
                "--output-format=json"]
        done = ctx.run(host, argv, timeout=120 + size / (5 * MiB), check=False, tool="fio")
        jobs = parse_fio_json(done.stdout) if "{" in done.stdout else []
        if done.returncode != 0 or not jobs:
            raise ToolOutputError(f"fio reading member {device} failed (exit {done.returncode}): "
                                  f"{done.stderr.strip()[-300:]}")
        io = require_io(jobs[0], "read")
        out.append(MemberRead(name=name, device=device, bytes=io.bytes, bytes_per_s=io.bytes_per_s))
    return out

