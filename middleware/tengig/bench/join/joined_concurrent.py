"""Several joined desktops copying at once: what the NAS serves to all of them together.

Each desktop first prepares its file and its scratch directory and answers; only then does the NAS
queue every desktop's copy at the same instant (the start barrier, ``BenchSession.post_all``). Each
desktop takes its copy at its next poll; the NAS notes when, and when each answer arrived, on its own
clock, so the aggregate is all bytes over the span from the first copy taken to the last answer (the
NAS's clock, never a desktop's: it holds the copies' start and answer too, so it errs low), and the
spread of the starts is reported beside it.

Every desktop's bytes are checked on the NAS port it reached; desktops that share a port are checked
together (that port carried the sum of their copies), and each desktop's rate against that port's bytes
over its own window (bench/join/nas_witness.py)."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Literal

from ...backends.scratch import ScratchStorage
from ...errors import ToolOutputError
from ...units import MiB, format_size
from ..phases.arc import ArcDelta, arc_for_run, delta
from ..context import BenchContext
from .asking import record
from .joined import SMB_MIN_WIRE_RATIO, checked, parsed_copy
from ..phases.nas_port import NasPort, counters
from ..phases.nas_share import NasShare
from .nas_witness import check_copy_on_nas_clock
from ..phases.cache_policy import file_size, reading
from ..phases.pool_presets import PRESETS, PresetName
from ...join_protocol.messages import Submission
from .session import BenchSession, JoinedClient
from ..phases.share_scratch import close_share_scratch, open_share_scratch
from ..phases.smb_results import ConcurrentDirection, SmbConcurrentResult
from ...backends.host_os import HostOs
from ..stats import summarize

ENGINE = "each desktop's own SMB client, started together by the NAS (start barrier)"


def measure_joined_concurrent_smb(ctx: BenchContext, session: BenchSession, clients: Sequence[JoinedClient],
                                  nas: str, ports: dict[str, NasPort], share: NasShare, storage: ScratchStorage, *,
                                  host_os: HostOs, preset: PresetName, repeats: int | None,
                                  requested: int | None = None) -> SmbConcurrentResult:
    repeats = repeats or PRESETS[preset].repeats
    scratch = open_share_scratch(ctx, storage, nas, share, f"{int(time.time())}-{session.id}-all")
    try:
        policy = scratch.policy
        arc, unknowns = arc_for_run(host_os, ctx, nas, policy)
        size = file_size(policy, arc.c_max if arc else 0, PRESETS[preset].smb_file, requested,
                         field="smb_file")
        remotes = {c.name: scratch.remote_dir(c.name) for c in clients}
        timeout = 120 + 2 * len(clients) * size / MiB
        smb = {c.name: {"server": c.local_address, "share": share.name, "size": size} for c in clients}
        written = repeats * size * len(clients)
        ctx.report(0, f"smb: {len(clients)} clients make {format_size(size)} of random data each")
        for c, (_, sub) in zip(clients, _together(ctx, session, clients, timeout, "smb prepare", lambda c: {
                **smb[c.name], "op": "prepare", "remote": remotes[c.name]})):
            checked(sub, c, "prepare")
        results = {}
        for direction in ("write", "read"):
            per: dict[str, list[float]] = {c.name: [] for c in clients}
            wires: dict[str, list[int]] = {c.name: [] for c in clients}
            aggregate, spreads = [], []
            arc_total = ArcDelta(hits=0, misses=0)
            if direction == "read" and not policy.uncached:
                written += size * len(clients)
                ctx.report(50, f"smb: pushing the last files out of {nas}'s ARC")
                for c, (_, sub) in zip(clients, _together(ctx, session, clients, timeout, "smb evict", lambda c: {
                        **smb[c.name], "op": "put", "remote": f"{remotes[c.name]}\\evict.dat"})):
                    checked(sub, c, "put")
            with reading(storage, policy, sequential=True) if direction == "read" else nullcontext():
                for i in range(repeats):
                    ctx.report((0 if direction == "write" else 50) + 50 * i / repeats,
                               f"smb {len(clients)} clients at once {direction} run {i + 1}/{repeats}")
                    if direction == "read":
                        host_os.drop_caches(ctx, nas)
                    a0 = host_os.read_arc(ctx, nas) if direction == "read" and arc is not None else None
                    speeds, total, spread, wire = _round(ctx, session, clients, nas, ports, smb, remotes, direction,
                                                         i, size, timeout)
                    if a0 is not None:
                        arc_total = arc_total + delta(a0, host_os.read_arc(ctx, nas))
                    for c in clients:
                        per[c.name].append(speeds[c.name])
                        wires[c.name].append(wire[c.name])
                    aggregate.append(total)
                    spreads.append(spread)
                    ctx.sample(phase=f"smb {len(clients)} clients {direction}", bytes_per_s=total)
            results[direction] = ConcurrentDirection(
                direction=direction, per_client={n: summarize(v) for n, v in per.items()},
                aggregate=summarize(aggregate), wire_bytes=wires, start_spread_seconds=spreads,
                arc_hit_ratio=arc_total.hit_ratio if direction == "read" and arc is not None else None)
        ctx.report(100, "smb concurrent clients done")
        return SmbConcurrentResult(engine=ENGINE, clients=[c.name for c in clients], file_size=size,
                                   read=results["read"], write=results["write"], cache_policy=policy,
                                   bytes_written=written, unknowns=unknowns)
    finally:
        close_share_scratch(ctx, storage, scratch)


def _together(ctx: BenchContext, session: BenchSession, clients: Sequence[JoinedClient], timeout: float, tool: str,
              params: Callable[[JoinedClient], dict]) -> list[tuple[int, Submission]]:
    """One instruction to every client at the same instant (the start barrier); every answer waited for
    and recorded -> (instruction, submission) per client, in ``clients``' order."""
    ctx.check_cancel()
    started = time.time()
    ids = session.post_all([(c, "smb", params(c)) for c in clients])
    answers = []
    for c, instruction in zip(clients, ids):
        sub = session.wait_result(c, instruction, timeout=timeout, cancel=ctx.cancel)
        record(ctx, c, tool, sub, started)
        answers.append((instruction, sub))
    return answers


def _round(ctx: BenchContext, session: BenchSession, clients: Sequence[JoinedClient], nas: str,
           ports: dict[str, NasPort], smb: dict, remotes: dict[str, str], direction: Literal["read", "write"],
           run: int, size: int, timeout: float) -> tuple[dict[str, float], float, float, dict[str, int]]:
    """One copy by every client at once -> (per-client bytes/s, aggregate bytes/s on the NAS's clock, start
    spread s, wire bytes)."""
    by_port: dict[str, list[JoinedClient]] = {}
    for c in clients:
        by_port.setdefault(ports[c.name].ifname, []).append(c)
    before = {ifname: counters(ctx, nas, ports[group[0].name]) for ifname, group in by_port.items()}
    op = "get" if direction == "read" else "put"
    answers = _together(ctx, session, clients, timeout, "smb copy", lambda c: {
        **smb[c.name], "op": op, "remote": f"{remotes[c.name]}\\f{run}.dat"})
    subs = {c.name: answer for c, answer in zip(clients, answers)}
    after = {ifname: counters(ctx, nas, ports[group[0].name]) for ifname, group in by_port.items()}
    speeds = {c.name: parsed_copy(subs[c.name][1], c, direction, size).bytes_per_s for c in clients}
    wire = {}
    for ifname, group in by_port.items():
        key = "tx_bytes" if direction == "read" else "rx_bytes"
        seen = getattr(after[ifname], key) - getattr(before[ifname], key)
        if seen < SMB_MIN_WIRE_RATIO * size * len(group):
            names = " and ".join(c.name for c in group)
            raise ToolOutputError(
                f"{names} report SMB {direction}s of {format_size(size * len(group))} in all, but only "
                f"{format_size(max(0, seen))} crossed the NAS's port {ifname}: not measured over the link "
                "(the run is not trusted)")
        for c in group:
            wire[c.name] = seen
            check_copy_on_nas_clock(c.name, direction, size, speeds[c.name], seen,
                                    session.nas_seconds(c, subs[c.name][0]), ports[c.name])
    starts = {c.name: c.fetched[subs[c.name][0]] for c in clients}  # each checked above: taken and answered
    first = min(starts.values())
    span = max(starts[c.name] - first + session.nas_seconds(c, subs[c.name][0]) for c in clients)
    return speeds, len(clients) * size / span, max(starts.values()) - first, wire
