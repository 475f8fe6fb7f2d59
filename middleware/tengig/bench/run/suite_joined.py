"""The suite with desktops that join over the network (system local): the NAS opens a bench session,
shows its token in the job's progress, waits for the clients, measures its own pool, then each
client's link and SMB through the session, and judges each client.

Every program here runs on the NAS (``system.nas``); the clients run theirs themselves."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ...verdict.advice import DIRECTIONS
from ...verdict.ceilings import tcp_goodput_bps
from ...verdict.models import Target
from ...verdict.thresholds import smb_thresholds
from ..context import BenchContext
from ..join.join_wait import announce
from ..join.joined import link_of, measure_joined_link, measure_joined_smb
from ..join.joined_disk import measure_joined_disk
from ..join.joined_concurrent import measure_joined_concurrent_smb
from ..join.joined_smallfiles import measure_joined_smallfiles
from ..phases.nas_port import address_towards, carrier_downs, find_port, proxied
from ..join.session import SESSIONS, ClientGone, JoinedClient
from .suite import (NET_OMIT, NET_SECONDS, SHARE_KINDS, ClientReport, judged_report, known_ceilings, plan_steps,
                    pool_step, small_files_plan)

T = TypeVar("T")


def run_joined(ctx: BenchContext, system: Any, req: Any, target: Target):
    session, token = SESSIONS.create(req.join, join_timeout=req.join_timeout)
    ended = "failed"
    try:
        share = system.share(ctx, req.share) if req.kind in SHARE_KINDS else None
        clients = session.wait_joined(ctx.cancel, on_change=announce(ctx, session, token))
        if ctx.on_joined is not None:
            ctx.on_joined(clients)
        steps = plan_steps(req.kind, clients, concurrent=req.kind in ("smb", "all") and len(clients) > 1,
                           small=req.preset == "full")
        concurrent = None
        reports: dict[str, ClientReport] = {}
        for c in clients:
            if proxied(c.local_address, c.peer_address):  # through TrueNAS's nginx: which link, by route
                c.local_address = address_towards(ctx, system.nas, c.peer_address)
            port = find_port(ctx, system.nas, c.local_address)
            reports[c.name] = ClientReport(client=c.name, joined={**c.describe(), **c.info.model_dump()},
                                           nas_port=port, link=link_of(c, system.nas, port))
        pool = None
        for n, (kind, client) in enumerate(steps):
            part = ctx.part(100 * n / len(steps), 100 * (n + 1) / len(steps))
            if kind == "pool":
                pool = pool_step(part, system, req, target, [r.link for r in reports.values()])
                continue
            if kind == "smb-concurrent":
                alive = [c for c in clients if reports[c.name].lost is None]
                if len(alive) > 1:
                    concurrent = _unless_lost(part, reports, alive, lambda: measure_joined_concurrent_smb(
                        part, session, alive, system.nas, {c.name: reports[c.name].nas_port for c in alive}, share,
                        system.storage(part), host_os=system.os, preset=req.preset, repeats=req.repeats,
                        requested=req.smb_file))
                continue
            if reports[client.name].lost is None:
                _unless_lost(part, reports, [client],
                             lambda: _client_step(part, system, req, target, session, client, share, kind, pool,
                                                  reports[client.name]))
        for c in clients:
            r = reports[c.name]
            if c.info.disk and r.own_disk is None and r.own_disk_note is None:
                r.own_disk_note = "not measured: a desktop's own disk is measured in runs with SMB (its copies' size)"
        for r in reports.values():
            before, after = r.nas_port.carrier_downs, carrier_downs(ctx, system.nas, r.nas_port)
            r.link_downs = after - before if before is not None and after is not None else None
        report = judged_report(ctx, system, req, target, pool, list(reports.values()),
                               {c.name: _mtus(c, system.nas, reports[c.name]) for c in clients}, concurrent)
        ended = "finished"
        return report
    except BaseException as exc:
        ended = f"the run on the NAS stopped: {getattr(exc, 'message', None) or exc}"
        raise
    finally:
        session.end(ended)


def _client_step(part: BenchContext, system: Any, req: Any, target: Target, session, client: JoinedClient, share,
                 kind: str, pool, report: ClientReport) -> None:
    """One desktop's network, SMB (and its own disk) or small-file step, filling its report."""
    if kind == "smallfiles":
        report.small_files, seen = measure_joined_smallfiles(
            part, session, client, system.nas, report.nas_port, share, system.storage(part),
            small_files_plan(req))
        report.small_files_session = seen
        return
    if kind == "net":
        report.network, report.network_skipped = measure_joined_link(
            part, session, client, system.nas, report.nas_port, streams=req.streams,
            seconds=req.net_seconds or NET_SECONDS[req.preset], omit=NET_OMIT[req.preset],
            skip_when_line_full=True)
        return
    known = known_ceilings(pool, report)
    one_stream = max((m.goodput_bps for m in report.network if m.streams == 1), default=None)
    if one_stream is None and report.link and report.link.line_rate_bps:  # an SMB-only run: the line's
        one_stream = tcp_goodput_bps(report.link.line_rate_bps, report.link.mtu)
    report.smb = measure_joined_smb(part, session, client, system.nas, report.nas_port, share,
                                    system.storage(part), host_os=system.os, preset=req.preset,
                                    repeats=req.repeats,
                                    against={d: smb_thresholds(target, d, known) for d in DIRECTIONS},
                                    goodput_bps=one_stream, requested=req.smb_file)
    if client.info.disk:  # the desktop's own disk, the same file size as its copies
        report.own_disk, report.own_disk_note = measure_joined_disk(part, session, client, report.smb.file_size)


def _unless_lost(ctx: BenchContext, reports: dict[str, ClientReport], taking_part: list[JoinedClient],
                 step: Callable[[], T]) -> T | None:
    """Run ``step``; a desktop that leaves during it (killed, asleep, unplugged) is recorded as lost and the run
    goes on with the others, keeping what everyone measured. With no other desktop left, the run stops,
    naming it."""
    try:
        return step()
    except ClientGone as exc:
        gone = [c for c in taking_part if c.gone] or taking_part[:1]
        for c in gone:
            reports[c.name].lost = exc.message
        left = [name for name, r in reports.items() if r.lost is None]
        if not left:
            raise
        ctx.report(100, f"{', '.join(c.name for c in gone)} lost ({exc.message}); the run goes on with "
                        f"{', '.join(left)}")
        return None


def _mtus(client: JoinedClient, nas: str, report) -> dict[str, int]:
    mtus = {f"{nas}:{report.nas_port.ifname}": report.nas_port.mtu}
    if client.info.mtu:
        mtus[f"{client.name}:{client.info.interface or 'its port'}"] = client.info.mtu
    return mtus
