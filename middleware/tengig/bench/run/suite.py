"""The whole measurement in one call: pool (fio), network (iperf3) and SMB (smbclient) for each client,
one after another, then the verdict against a target disk: the run's steps, its report, and each client
judged. Where it runs is a BenchSystem (the lab, plain Linux, a TrueNAS) that hands it hosts, storage,
the SMB endpoint and each client's link; run/record.py starts a run and records it."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ...errors import ValidationError
from ...results.models import Environment
from ...verdict.judge import judge
from ...verdict.models import Ceiling, Facts, Target, Verdict
from ...verdict.targets import DEFAULT_TARGET
from ...backends.host_os import HostOs
from ...verdict.thresholds import link_ceilings, pool_thresholds
from ..context import BenchContext
from ..hosts import Hosts
from ..phases.nas_port import NasPort
from ..phases.nas_share import TRUENAS_SMB_CONFIG
from ..phases.network import LinkUnderTest, NetMeasurement, path_retransmits
from ..join.own_disk import OwnDisk, own_disk_target
from ..phases.pool import PoolBenchRequest, PoolBenchResult, pool_facts, run_pool_bench
from ..phases.pool_presets import PresetName
from ..phases.scaling import MEMBER_READ_MAX, ScalingMode
from ...backends.scratch import ScratchStorage
from ...join_protocol.limits import small_count_error, small_total_error
from ..phases.smallfiles_plan import SMALL_FILES, SmallFilesSize
from ..phases.smallfiles_results import SmallFilesResult
from ..phases.smb_probes import SmbSession
from ..phases.smb_results import SmbBenchResult, SmbConcurrentResult
from .aggregate import judge_aggregate

Kind = Literal["pool", "net", "smb", "smallfiles", "all"]
SHARE_KINDS = ("smb", "smallfiles", "all")  # the kinds whose desktops copy through a share
NET_SECONDS = {"quick": 3, "full": 10}
NET_OMIT = {"quick": 1, "full": 2}


class BenchSystem(Protocol):
    name: str
    nas: str
    pool: str
    hosts: Hosts
    os: HostOs  # the NAS's OS: its ARC counters, cache drop and fio ioengine (systems/host_os.py)

    def storage(self, ctx: BenchContext) -> ScratchStorage: ...

    def environment(self) -> Environment: ...


class BenchRunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Kind = Field("all", description="What to measure: pool, net, smb, smallfiles, or all of them (all "
                       "includes smallfiles in the full preset).")
    target: str = Field(DEFAULT_TARGET, description="Target disk to beat (see tengig.targets.query).")
    clients: list[str] = Field(default_factory=list, description="Client hosts (default: the system's first client).")
    preset: PresetName = Field("quick", description="quick (about a minute on the lab) or full (under 5 minutes on the lab with one desktop at 1 Gb/s).")
    repeats: int | None = Field(None, ge=1, le=20, description="Runs per test (default: the preset's).")
    streams: int = Field(4, ge=1, le=64, description="iperf3 parallel streams for the N-stream test.")
    net_seconds: int | None = Field(None, ge=1, le=600, description="iperf3 measured seconds per test.")
    working_set: int | None = Field(None, ge=64 * 2**20, le=2**40, description="Bytes per pool test file (default: "
                                    "the preset's, or the system's own: the lab's emulated pool takes 128 MiB).")
    smb_file: int | None = Field(None, ge=64 * 2**20, le=2**40, description="Bytes per SMB copy (default: the "
                                 "preset's; quick sizes each copy to about 1.5 s of the client's network). Where the "
                                 "NAS cannot keep its ARC out of the reads, at least twice the ARC.")
    join: int = Field(0, ge=0, le=16, description="Desktops to wait for (system local): each joins over the "
                      "network with `tengig client join`.")
    join_timeout: int = Field(300, ge=10, le=3600, description="Seconds to wait for them to join.")
    share: str | None = Field(None, description="The SMB share joined clients copy to (system local).")
    scaling: ScalingMode = Field("auto", description="The pool's thread sweep (SEQ1M at 1, 2, 4 ... threads up to "
                                 "the NAS's cores, each member's load beside it): on, off, only (the sweep alone, no "
                                 "preset tests), or auto (on in full, off in quick).")
    member_reads: bool = Field(False, description="With the sweep: also read each pool member alone, raw and "
                               "read-only (it touches every disk; member_read_bytes each).")
    member_read_bytes: int = Field(256 * 2**20, ge=16 * 2**20, le=MEMBER_READ_MAX,
                                   description="Bytes read from each pool member with member_reads.")
    small_files: list[SmallFilesSize] | None = Field(None, min_length=1, max_length=4, description="The small-file "
                                                     "test's sizes, each with its number of files (default: the "
                                                     "preset's).")

    @model_validator(mode="after")
    def _small_files_bounded(self) -> "BenchRunRequest":
        for i, one in enumerate(self.small_files or []):
            if (why := small_count_error(one.count) or small_total_error(one.size, one.count)) is not None:
                raise ValidationError.one(f"small_files.{i}.count", why)
        return self


def small_files_plan(req: "BenchRunRequest") -> list[tuple[int, int]]:
    if req.small_files:
        return [(s.size, s.count) for s in req.small_files]
    return list(SMALL_FILES[req.preset])


class ClientReport(BaseModel):
    client: str
    joined: dict[str, Any] | None = Field(None, description="A desktop that joined: what it said about itself "
                                          "(os, interface, MTU, speed) and its address.")
    nas_port: NasPort | None = Field(None, description="The NAS's port this client reached, as the NAS saw it.")
    link: LinkUnderTest | None = None
    network: list[NetMeasurement] = Field(default_factory=list)
    link_downs: int | None = Field(None, description="Times the NAS's port to this client lost its link during "
                                   "the run (the kernel's carrier changes before and after); None: unknown.")
    network_skipped: list[str] = Field(default_factory=list, description="iperf3 tests the quick preset left out, "
                                       "each with why (one stream already filled the line).")
    smb: SmbBenchResult | None = None
    verdict: Verdict | None = None
    own_disk: OwnDisk | None = Field(None, description="The desktop's own disk, as it measured it (--disk).")
    own_disk_note: str | None = Field(None, description="Why the desktop's own disk was not measured, when asked.")
    small_files: SmallFilesResult | None = Field(None, description="The small-file test (smallfiles): per size, "
                                                 "files/s, MB/s and each file's time through the share, and on "
                                                 "the desktop's own disk with --disk.")
    small_files_session: SmbSession | None = Field(None, description="The SMB session of the small-file test "
                                                   "(dialect, signing, encryption), as smbstatus showed it.")
    own_disk_verdict: Verdict | None = Field(None, description="SMB against the desktop's own disk, beside the "
                                             "verdict against the run's target.")
    lost: str | None = Field(None, description="Why this desktop's part ended early (it left, or stopped answering): "
                             "what it measured before is kept, it has no verdict, and the others' run went on.")


class BenchReport(BaseModel):
    system: str
    kind: Kind
    preset: PresetName
    target: str
    pool: PoolBenchResult | None = None
    clients: list[ClientReport]
    smb_concurrent: SmbConcurrentResult | None = Field(
        None, description="With several desktops joined: all of them at once, started together by the NAS.")
    aggregate_verdict: Verdict | None = Field(
        None, description="With several clients at once: what the NAS serves to all of them together against the "
        "target, and what bounds the sum (the pool, the NAS's ports, SMB).")
    bytes_written: int | None = Field(None, description="Bytes this run wrote to the NAS's pool: the pool test's "
                                      "files and every SMB copy to the NAS.")
    swept: list[str] = Field(default_factory=list, description="Scratch datasets an earlier run left (killed, or "
                             "held busy at its end), removed before this run measured.")
    left_behind: list[str] = Field(default_factory=list, description="This run's scratch datasets that could not be "
                                   "removed at its end, each with why (e.g. dataset is busy); the next run removes "
                                   "them. The figures are kept.")

    @property
    def verdict(self) -> Verdict | None:
        """The first desktop's verdict (one that was lost mid-run has none: the next one's)."""
        return next((c.verdict for c in self.clients if c.verdict is not None), None)


def _net_ceilings(ms: list[NetMeasurement]) -> list[Ceiling]:
    out = []
    for direction in ("read", "write"):
        best = max((m for m in ms if m.direction == direction), key=lambda m: m.goodput_bps, default=None)
        if best:
            out.append(Ceiling(component="network", direction=direction, bytes_per_s=best.goodput_bps / 8,
                               provenance="measured", label=f"iperf3 {best.link} {direction} {best.streams} stream(s)"))
    return out


def plan_steps(kind: Kind, clients: Sequence[Any], *, concurrent: bool = False,
               small: bool = False) -> list[tuple[str, Any]]:
    """The run's steps in order: the pool once, then each client's network, SMB and (``small``, or kind
    smallfiles) small files, as ``kind`` asks, then (``concurrent``) every client's SMB at once."""
    do_pool, do_net, do_smb = (kind in (k, "all") for k in ("pool", "net", "smb"))
    wanted = {"net": do_net, "smb": do_smb, "smallfiles": kind == "smallfiles" or (kind == "all" and small)}
    return ([("pool", None)] * do_pool + [(k, c) for c in clients for k in ("net", "smb", "smallfiles") if wanted[k]]
            + [("smb-concurrent", None)] * concurrent)


def pool_step(ctx: BenchContext, system: Any, req: BenchRunRequest, target: Target,
              links: Sequence[LinkUnderTest | None]) -> PoolBenchResult:
    """The pool's step of a run: fio on a scratch dataset of the system's pool, each phase repeated until
    more runs could not change the verdict against ``target`` and the clients' ``links``."""
    known = [c for link in links if link for c in link_ceilings(link.line_rate_bps, link.mtu)]
    return run_pool_bench(ctx, system.storage(ctx), system.nas,
                          PoolBenchRequest(pool=system.pool, preset=req.preset, repeats=req.repeats,
                                           working_set=req.working_set,
                                           scaling=req.scaling,
                                           member_reads=req.member_reads,
                                           member_read_bytes=req.member_read_bytes), host_os=system.os,
                          default_size=getattr(system, "pool_working_set", None),
                          against={d: pool_thresholds(target, d, known) for d in ("read", "write")})


def judged_report(ctx: BenchContext, system: Any, req: BenchRunRequest, target: Target, pool: PoolBenchResult | None,
                  reports: Sequence[ClientReport], mtus: dict[str, dict[str, int]],
                  concurrent: SmbConcurrentResult | None) -> BenchReport:
    """Every client's verdict (``mtus``: client -> the MTUs along its path), the aggregate verdict when the
    clients also ran at once, and the run's report."""
    for r in reports:
        if r.lost is None:  # a desktop lost mid-run has part of its figures: no verdict from them
            judge_client(target, pool, r, mtus[r.client])
    aggregate = None
    if concurrent:
        every = {name: mtu for path in mtus.values() for name, mtu in path.items()}
        aggregate = judge_aggregate(target, pool, [r for r in reports if r.lost is None], concurrent, every)
    ctx.report(100, "verdict")
    written = [p.bytes_written for p in (pool, *(r.smb for r in reports), *(r.small_files for r in reports),
                                         concurrent)
               if p is not None and p.bytes_written is not None]
    return BenchReport(system=system.name, kind=req.kind, preset=req.preset, target=target.name, pool=pool,
                       clients=list(reports), smb_concurrent=concurrent, aggregate_verdict=aggregate,
                       bytes_written=sum(written) if written else None, swept=list(ctx.leftovers.swept),
                       left_behind=list(ctx.leftovers.left_behind))


def known_ceilings(pool: PoolBenchResult | None, report: ClientReport) -> list[Ceiling]:
    """What the verdict will know of this client's chain so far: the pool's ceilings, its network's, and its
    link's physical goodput (estimated)."""
    link = report.link
    links = link_ceilings(link.line_rate_bps, link.mtu) if link else []
    return (pool.ceilings() if pool else []) + _net_ceilings(report.network) + links


def judge_client(target: Target, pool: PoolBenchResult | None, report: ClientReport, mtus: dict[str, int]) -> None:
    """One client's verdict from the pool's and its own ceilings, with the MTUs of both ends."""
    ceilings = ((pool.ceilings() if pool else []) + _net_ceilings(report.network)
                + (report.smb.ceilings() if report.smb else []))
    facts = facts_from(report, mtus).model_copy(update=pool_facts(pool))
    report.verdict = judge(target, ceilings, facts)
    if report.own_disk is not None:
        report.own_disk_verdict = judge(own_disk_target(report.client, report.own_disk), ceilings, facts)


def facts_from(report: ClientReport, mtus: dict[str, int]) -> Facts:
    single = [m.goodput_bps for m in report.network if m.streams == 1]
    multi = [m.goodput_bps for m in report.network if m.streams > 1]
    session = (report.smb.session if report.smb else None) or report.small_files_session
    cpu = [d.smbd_cpu_percent for d in ((report.smb.read, report.smb.write) if report.smb else ())
           if d.smbd_cpu_percent is not None]
    return Facts(
        link_negotiated_bps=report.link.line_rate_bps if report.link else None,
        mtus=mtus,
        net_single_stream_bps=max(single) if single else None,
        net_multi_stream_bps=max(multi) if multi else None,
        net_retransmits=path_retransmits(report.network),
        smb_signing=session.signing if session else None,
        smb_encryption=session.encryption if session else None,
        smbd_cpu_percent=max(cpu) if cpu else None,
        **_smbd_limit_facts(report),
        **_client_cpu_facts(report),
        duplex=report.nas_port.duplex if report.nas_port else None,
        link_downs=report.link_downs,
        **_small_files_facts(report.small_files),
        **_multichannel_facts(report),
        **(report.smb.facts() if report.smb else {}),
    )


def _small_files_facts(small: SmallFilesResult | None) -> dict[str, Any]:
    """The smallest size's write through the share (and on the desktop's own disk), and the link's round trip."""
    if small is None or not small.sizes:
        return {}
    first = min(small.sizes, key=lambda s: s.size)
    write, local = first.op("write"), first.op("write", own_disk=True)
    return {"small_file_size": first.size, "round_trip_ms": small.round_trip_ms,
            "small_files_per_s": write.files_per_s if write else None,
            "small_file_ms": write.per_file.p50_ms if write and write.per_file else None,
            "small_files_smbd_cpu_percent": write.smbd_cpu_percent if write else None,
            "small_files_local_per_s": local.files_per_s if local else None}


def _client_cpu_facts(report: ClientReport) -> dict[str, Any]:
    """The desktop's name, and its SMB client's CPU in the direction where it used most of what it may use."""
    used = [d.client_cpu for d in ((report.smb.read, report.smb.write) if report.smb else ())
            if d.client_cpu is not None]
    if not used:
        return {"client_name": report.client}
    most = max(used, key=lambda c: c.cores / min(1.0, c.cpus))
    return {"client_name": report.client, "client_cpu_cores": most.cores, "client_cpus": most.cpus}


def _multichannel_facts(report: ClientReport) -> dict[str, Any]:
    """SMB multichannel as the NAS read it (offered, channels per session), and its port: a LAGG, or one of
    several NICs that could each carry a channel."""
    port, mc = report.nas_port, report.smb.multichannel if report.smb else None
    out: dict[str, Any] = {}
    if port is not None:
        out |= {"lagg_protocol": port.lagg_protocol, "lagg_members": port.lagg_members,
                "nas_smb_nics": 1 + len(port.other_nics)}
    if mc is not None:
        out |= {"smb_multichannel": mc.enabled, "smb_channels": mc.session_channels,
                "nas_truenas": mc.read_from == TRUENAS_SMB_CONFIG if mc.read_from else None}
    return out


def _smbd_limit_facts(report: ClientReport) -> dict[str, Any]:
    """smbd's CPU limit in the direction where the kernel throttled it most (none measured: unknown)."""
    limits = [d.smbd_cpu_limit for d in ((report.smb.read, report.smb.write) if report.smb else ())
              if d.smbd_cpu_limit is not None]
    if not limits:
        return {}
    worst = max(limits, key=lambda lim: lim.throttled_percent or 0)
    return {"smbd_cgroup": worst.cgroup, "smbd_cpu_limit_cores": worst.limit_cores,
            "smbd_throttled_percent": worst.throttled_percent}
