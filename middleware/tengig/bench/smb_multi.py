"""Several SMB clients at once: fio's client/server mode (an existing distributed engine that runs on
Linux, FreeBSD and Windows clients) over the share mounted on each client, all clients writing (then
reading) their own file at the same time. Per-client and aggregate MB/s from fio's bytes and runtime,
each client's share cross-checked against its port's byte counters. Files of at least 2 x ARC, one
per run and client, caches dropped before reads (see bench/pool.py)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from ..errors import ToolOutputError
from ..units import MiB, format_size
from .arc import read_arc
from .context import BenchContext
from .fio_parse import parse_fio_json, require_io
from .network import wait_listening
from .cache_policy import LARGER_THAN_ARC, CachePolicy, file_size
from .pool import drop_caches
from .pool_presets import PRESETS, PresetName
from .smb import MIN_WIRE_RATIO, SmbEndpoint, _counters
from .stats import Repeated, summarize

FIO_PORT = 8765


class MountedSmbEndpoint(SmbEndpoint, Protocol):
    """An SMB endpoint whose clients can mount the share (for fio) and run fio servers."""

    controller: str  # the host that runs `fio --client=...` and reaches every client

    def mount(self, ctx: BenchContext, client: str) -> str: ...  # -> the share's path on the client

    def unmount(self, ctx: BenchContext, client: str) -> None: ...

    def jobdir(self) -> Path: ...  # where job files for the controller go


class ConcurrentDirection(BaseModel):
    direction: str
    per_client: dict[str, Repeated] = Field(description="Client -> bytes/s per run (fio bytes / fio runtime).")
    aggregate: Repeated = Field(description="All clients' bytes over the time they took together, per run, bytes/s "
                                "(fio: the slowest client's runtime; joined: first start to last finish).")
    wire_bytes: dict[str, list[int]] = Field(description="Client -> its port's bytes per run (clients sharing "
                                             "a port of the NAS: that port's bytes, the sum of theirs).")
    start_spread_seconds: list[float] | None = Field(
        None, description="Per run: from the first client's start to the last one's, s (joined clients, "
        "started together by the NAS).")
    arc_hit_ratio: float | None = Field(None, description="Reads: ARC hits / (hits + misses) on the NAS during "
                                        "the reads (near 0: the reads came from the pool).")


class SmbConcurrentResult(BaseModel):
    engine: str = "fio client/server over a mounted share"
    clients: list[str]
    file_size: int
    read: ConcurrentDirection
    write: ConcurrentDirection
    cache_policy: CachePolicy | None = Field(None, description="How the ARC was kept out of the reads.")
    bytes_written: int | None = Field(None, description="Bytes the clients wrote to the NAS's pool.")


def _job_text(name: str, path: str, direction: str, size: int) -> str:
    lines = [f"[{name}]", f"filename={path}", f"rw={direction}", "bs=1M", f"size={size}", "ioengine=psync"]
    if direction == "write":
        lines += ["refill_buffers", "end_fsync=1"]
    return "\n".join(lines) + "\n"


def _round(ctx: BenchContext, ep: MountedSmbEndpoint, clients: list[str], mounts: dict[str, str], direction: str,
           run: int, remote: str, size: int, tag: str) -> tuple[dict[str, float], float, dict[str, int]]:
    argv = ["fio", "--output-format=json"]
    for c in clients:
        job = ep.jobdir() / f"tengig-{tag}-{c}-{direction}-{run}.fio"
        job.write_text(_job_text(f"{c}-{direction}", f"{mounts[c]}/{remote}/{c}-{run}.dat", direction, size))
        argv += [f"--client={ep.client_address(c)}", str(job)]
    before = {c: _counters(ctx, ep, c) for c in clients}
    done = ctx.run(ep.controller, argv, timeout=120 + 2 * size / MiB, check=False, tool="fio")
    after = {c: _counters(ctx, ep, c) for c in clients}
    jobs = parse_fio_json(done.stdout) if "{" in done.stdout else []
    by_host = {j.hostname: j for j in jobs}
    speeds, runtimes, moved, wire = {}, [], 0, {}
    for c in clients:
        job = by_host.get(ep.client_address(c))
        if job is None:
            raise ToolOutputError(f"fio client/server gave no result for {c} (exit {done.returncode}): "
                                  f"{(done.stderr.strip().splitlines() or ['(no message)'])[-1][:300]}")
        io = require_io(job, direction)
        key = "rx_bytes" if direction == "read" else "tx_bytes"
        wire[c] = getattr(after[c], key) - getattr(before[c], key)
        if wire[c] < MIN_WIRE_RATIO * io.bytes:
            raise ToolOutputError(f"fio on {c} reports {format_size(io.bytes)} {direction} but only "
                                  f"{format_size(max(0, wire[c]))} crossed its port: not measured over the link")
        speeds[c], moved = io.bytes_per_s, moved + io.bytes
        runtimes.append(io.runtime_ms / 1000)
    return speeds, moved / max(runtimes), wire


def run_concurrent_smb(ctx: BenchContext, ep: MountedSmbEndpoint, clients: list[str],
                       preset: PresetName = "quick", repeats: int | None = None) -> SmbConcurrentResult:
    repeats = repeats or PRESETS[preset].repeats
    arc = read_arc(ctx, ep.server)
    size = file_size(LARGER_THAN_ARC, arc.c_max, PRESETS[preset].smb_file, None, field="file_size")
    tag = f"{int(time.time())}-multi"
    remote = f"tengig-bench-{tag}"
    mounts, servers = {}, []
    try:
        for c in clients:
            mounts[c] = ep.mount(ctx, c)
        for c in clients:  # after the mounts: a server started before its mount does not see it (docs/lab.md §6)
            servers.append(ctx.spawn(c, ["fio", "--server"], log_name=f"fio-server-{c}.log"))  # port 8765
        for c, proc in zip(clients, servers):
            wait_listening(ctx, c, FIO_PORT, proc, program="fio --server", timeout=15)
        ctx.run(clients[0], ep.smbclient_argv(clients[0], f"mkdir {remote}"), timeout=60, tool="smbclient")
        results = {}
        for direction in ("write", "read"):
            per, agg, wires = {c: [] for c in clients}, [], {c: [] for c in clients}
            for i in range(repeats):
                ctx.report((0 if direction == "write" else 50) + 50 * i / repeats,
                           f"smb {len(clients)} clients at once {direction} run {i + 1}/{repeats}")
                if direction == "read":
                    drop_caches(ctx, ep.server)
                speeds, total, wire = _round(ctx, ep, clients, mounts, direction, i, remote, size, tag)
                for c in clients:
                    per[c].append(speeds[c])
                    wires[c].append(wire[c])
                agg.append(total)
                ctx.sample(phase=f"smb {len(clients)} clients {direction}", bytes_per_s=total)
            results[direction] = ConcurrentDirection(
                direction=direction, per_client={c: summarize(v) for c, v in per.items()},
                aggregate=summarize(agg), wire_bytes=wires)
        ctx.report(100, "smb concurrent clients done")
        return SmbConcurrentResult(clients=clients, file_size=size, read=results["read"], write=results["write"],
                                   cache_policy=LARGER_THAN_ARC,
                                   bytes_written=repeats * size * len(clients))
    finally:
        for proc in servers:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except Exception:
                proc.kill()
        quiet = ctx.uncancellable()
        if mounts:
            quiet.run(clients[0], ep.smbclient_argv(clients[0], f"deltree {remote}"), timeout=120, check=False)
        for c in mounts:
            ep.unmount(quiet, c)
        for job in ep.jobdir().glob(f"tengig-{tag}-*.fio"):
            job.unlink()

