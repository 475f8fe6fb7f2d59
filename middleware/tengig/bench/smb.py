"""SMB benchmark with Samba's C client (smbclient) on a client host: a real copy of incompressible data
to the NAS share (write) and back (read), MB/s from smbclient's own bytes and time, every transfer
checked against the client's interface byte counters, and the session's dialect, signing and
encryption read from smbstatus on the server.

Reads come from the disks, not from RAM: each run has its own file of at least 2 x the ARC (run i
writes file i and later reads it once; see bench/pool.py for why), and caches are dropped before each
read. Never a pure-Python SMB client: they measure themselves (docs/lab.md §6)."""
from __future__ import annotations

import os
import time
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from ..errors import TengigError, ToolOutputError, ValidationError
from ..names import HOSTNAME_RE
from ..units import MiB, format_size
from ..verdict.models import Ceiling
from .arc import ArcDelta, delta, read_arc
from .context import BenchContext
from .cache_policy import LARGER_THAN_ARC, CachePolicy, file_size
from .pool import drop_caches
from .pool_presets import PRESETS, PresetName
from .smbd_cpu_limit import SmbdCpuLimit
from .smb_probes import (
    LinkCounters, SmbSession, parse_cpu_ticks, parse_link_counters, parse_smbd_pids, parse_smbstatus_session,
)
from .smbclient_parse import parse_transfer
from .stats import Repeated, summarize

MIN_WIRE_RATIO = 0.98  # SMB adds headers: the wire carries at least the file's bytes
SESSION_WAIT_S = 10


class SmbEndpoint(Protocol):
    """Where SMB is measured: the server host and its share, and how clients reach it."""

    server: str
    pool: str

    def smbclient_argv(self, client: str, commands: str | None) -> list[str]: ...

    def smbstatus_argv(self) -> list[str]: ...

    def client_address(self, client: str) -> str: ...

    def client_ifname(self, client: str) -> str: ...

    def client_tmpdir(self, client: str) -> str: ...


class SmbBenchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    client: str = Field(description="Host that runs smbclient, e.g. 'desk'.")
    preset: PresetName = Field("quick", description="quick: 3 runs each way; full: 5.")
    repeats: int | None = Field(None, ge=1, le=20, description="Override the preset's runs per direction.")
    file_size: int | None = Field(None, gt=0, description="Bytes per file; >= 2 x ARC (default: the larger of "
                                  "2 x ARC and the preset's minimum).")


class SmbDirection(BaseModel):
    direction: str
    bytes_per_s: Repeated = Field(description="smbclient's bytes / smbclient's transfer time, per run, bytes/s.")
    bytes_per_run: int
    wire_bytes: list[int] = Field(description="Client interface bytes (rx for read, tx for write) per run.")
    smbd_cpu_percent: float | None = Field(description="smbd CPU over the runs, % of one core.")
    arc_hit_ratio: float | None = None
    write_back: str | None = Field(None, description="Reads: how the NAS made sure its pool had finished writing "
                                   "the copies first (zpool sync, or zpool iostat quiet), or why it could not.")
    smbd_cpu_limit: SmbdCpuLimit | None = Field(None, description="smbd's CPU cgroup during the copies: its limit "
                                                "and the share of periods the kernel throttled (Linux).")


class SmbBenchResult(BaseModel):
    client: str
    server: str
    engine: str = "smbclient"
    file_size: int
    session: SmbSession | None = Field(description="Dialect, signing, encryption (None: not observed).")
    read: SmbDirection
    write: SmbDirection
    cache_policy: CachePolicy | None = Field(None, description="How the ARC was kept out of the reads.")
    bytes_written: int | None = Field(None, description="Bytes the copies wrote to the NAS's pool.")

    def ceilings(self) -> list[Ceiling]:
        return [Ceiling(component="smb", direction=d.direction, bytes_per_s=d.bytes_per_s.median,
                        provenance="measured", label=f"SMB {d.direction} {self.client} <- {self.server} smbclient"
                        if d.direction == "read" else f"SMB write {self.client} -> {self.server} smbclient",
                        runs=d.bytes_per_s.values)
                for d in (self.read, self.write)]


def _counters(ctx: BenchContext, ep: SmbEndpoint, client: str) -> LinkCounters:
    done = ctx.run(client, ["ip", "-s", "-j", "link", "show", "dev", ep.client_ifname(client)], timeout=10,
                   record=False)
    return parse_link_counters(done.stdout)


def _smbd_ticks(ctx: BenchContext, ep: SmbEndpoint) -> int | None:
    return _smbd_ticks_on(ctx, ep.server)


def _smbd_ticks_on(ctx: BenchContext, server: str) -> int | None:
    """CPU clock ticks of every smbd process on ``server`` (children that ended included)."""
    ps = ctx.run(server, ["ps", "-e", "-o", "pid=,comm="], timeout=10, record=False)
    pids = parse_smbd_pids(ps.stdout)
    if not pids:
        return None
    done = ctx.run(server, ["cat", *(f"/proc/{p}/stat" for p in pids)], timeout=10, check=False, record=False)
    return parse_cpu_ticks(done.stdout)


def probe_session(ctx: BenchContext, ep: SmbEndpoint, client: str) -> SmbSession | None:
    """Hold an interactive smbclient session open and read what smbstatus says about it."""
    proc = ctx.spawn(client, ep.smbclient_argv(client, None), log_name=f"smbclient-probe-{client}.log",
                     stdin_pipe=True)
    try:
        deadline = time.monotonic() + SESSION_WAIT_S
        while time.monotonic() < deadline and proc.poll() is None:
            done = ctx.run(ep.server, ep.smbstatus_argv(), timeout=30, check=False, tool="smbstatus")
            if done.returncode == 0:
                session = parse_smbstatus_session(done.stdout, ep.client_address(client))
                if session:
                    return session
            time.sleep(0.2)
        return None
    finally:
        try:
            proc.communicate("quit\n", timeout=10)
        except Exception:
            proc.kill()
            proc.wait(timeout=5)


def _transfer(ctx: BenchContext, ep: SmbEndpoint, client: str, direction: str, commands: str, size: int,
              ticks: list[int], wire: list[int]) -> float:
    before = _counters(ctx, ep, client)
    t0 = _smbd_ticks(ctx, ep)
    started = time.monotonic()
    done = ctx.run(client, ep.smbclient_argv(client, commands), timeout=60 + size / MiB, check=False,
                   tool="smbclient")
    elapsed = time.monotonic() - started
    t1 = _smbd_ticks(ctx, ep)
    after = _counters(ctx, ep, client)
    output = done.stderr + done.stdout  # smbclient prints the first cause on stderr
    result = parse_transfer(output, direction=direction, expected_bytes=size)
    if done.returncode != 0:
        raise ToolOutputError(f"smbclient exited with {done.returncode}: {output.strip()[-300:]}")
    moved = (after.rx_bytes - before.rx_bytes) if direction == "read" else (after.tx_bytes - before.tx_bytes)
    if moved < MIN_WIRE_RATIO * size:
        raise ToolOutputError(
            f"smbclient reports {format_size(size)} {direction} but only {format_size(max(0, moved))} crossed "
            f"{ep.client_ifname(client)} on {client}: the data did not travel over the link")
    wire.append(moved)
    if t0 is not None and t1 is not None:
        ticks.append(t1 - t0)
    ctx.sample(phase=f"smb {direction} {client}", bytes_per_s=result.bytes_per_s, wall_seconds=elapsed)
    return result.bytes_per_s


def _cpu_percent(ticks: list[int], speeds: list[float], size: int, clk_tck: int) -> float | None:
    if not ticks or len(ticks) != len(speeds):
        return None
    busy = sum(ticks) / clk_tck
    transfer = sum(size / s for s in speeds)
    return 100 * busy / transfer if transfer > 0 else None


def run_smb_bench(ctx: BenchContext, ep: SmbEndpoint, req: SmbBenchRequest) -> SmbBenchResult:
    if not HOSTNAME_RE.fullmatch(req.client):
        raise ValidationError.one("client", f"{req.client!r} is not a host name")
    preset = PRESETS[req.preset]
    repeats = req.repeats or preset.repeats
    arc = read_arc(ctx, ep.server)
    size = file_size(LARGER_THAN_ARC, arc.c_max, preset.smb_file, req.file_size, field="file_size")
    tag = f"{int(time.time())}-{os.getpid()}"
    src = f"{ep.client_tmpdir(req.client).rstrip('/')}/tengig-smb-{tag}.dat"
    remote = f"tengig-bench-{tag}"
    clk = int(ctx.run(ep.server, ["getconf", "CLK_TCK"], timeout=10, record=False).stdout.strip() or 100)
    ctx.report(0, f"smb: {format_size(size)} of random data on {req.client}")
    ctx.run(req.client, ["dd", "if=/dev/urandom", f"of={src}", f"bs={MiB}", f"count={size // MiB}",
                         "iflag=fullblock", "status=none"], timeout=120 + size / MiB, tool="dd")
    try:
        ctx.run(req.client, ep.smbclient_argv(req.client, f"mkdir {remote}"), timeout=60, tool="smbclient")
        session = probe_session(ctx, ep, req.client)
        writes, wticks, wwire = [], [], []
        for i in range(repeats):
            ctx.report(5 + 45 * i / repeats, f"smb write {req.client} -> {ep.server} run {i + 1}/{repeats}")
            writes.append(_transfer(ctx, ep, req.client, "write", f"put {src} {remote}\\f{i}.dat", size,
                                    wticks, wwire))
        # The last file written is still in the ARC (up to the ARC's size of it): one more, untimed copy of
        # the same size (>= 2 x ARC) pushes it out, so every timed read below comes from the pool. Without
        # it a single-run read measured part RAM (59 MB/s from a 50 MB/s pool, under load).
        ctx.report(50, f"smb: pushing the last file out of {ep.server}'s ARC")
        ctx.run(req.client, ep.smbclient_argv(req.client, f"put {src} {remote}\\evict.dat"),
                timeout=120 + size / MiB, tool="smbclient")
        reads, rticks, rwire = [], [], []
        arc_total = ArcDelta(hits=0, misses=0)
        for i in range(repeats):
            ctx.report(50 + 45 * i / repeats, f"smb read {ep.server} -> {req.client} run {i + 1}/{repeats}")
            drop_caches(ctx, ep.server)
            a0 = read_arc(ctx, ep.server)
            reads.append(_transfer(ctx, ep, req.client, "read", f"get {remote}\\f{i}.dat /dev/null", size,
                                   rticks, rwire))
            d = delta(a0, read_arc(ctx, ep.server))
            arc_total = arc_total + d
        ctx.report(100, f"smb {req.client} done")
        return SmbBenchResult(
            client=req.client, server=ep.server, file_size=size, session=session,
            write=SmbDirection(direction="write", bytes_per_s=summarize(writes), bytes_per_run=size,
                               wire_bytes=wwire, smbd_cpu_percent=_cpu_percent(wticks, writes, size, clk)),
            read=SmbDirection(direction="read", bytes_per_s=summarize(reads), bytes_per_run=size, wire_bytes=rwire,
                              smbd_cpu_percent=_cpu_percent(rticks, reads, size, clk),
                              arc_hit_ratio=arc_total.hit_ratio),
            cache_policy=LARGER_THAN_ARC, bytes_written=(len(writes) + 1) * size,  # the copies and the evict file
        )
    finally:
        _cleanup(ctx, ep, req.client, src, remote)


def _cleanup(ctx: BenchContext, ep: SmbEndpoint, client: str, src: str, remote: str) -> None:
    """Remove the share's test directory and the client's source file, even after a failure or abort."""
    quiet = ctx.uncancellable()
    for argv, host in ((ep.smbclient_argv(client, f"deltree {remote}"), client), (["rm", "-f", src], client)):
        try:
            quiet.run(host, argv, timeout=120, check=False, tool=argv[0])
        except TengigError:
            pass
