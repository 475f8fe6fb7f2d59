"""Network and SMB measured with a desktop that joined the run (bench/join/session.py), from the NAS's side.

The NAS runs only its own programs: the iperf3 server bound to the address the client reached, its
port's byte counters, smbd's CPU time, smbstatus, the ARC counters, and the scratch place of the run in
the share (bench/phases/share_scratch.py). The client runs iperf3 and its SMB client and submits what they printed; the NAS parses
that output itself and refuses a number its own port did not carry, or that its own iperf3 server and its own
clock disagree with (bench/join/nas_witness.py)."""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Literal

from ...backends.scratch import ScratchStorage
from ...errors import ToolOutputError
from ...results.models import RawOutput
from ...units import MiB, format_size
from ..phases.arc import ArcDelta, arc_for_run, delta
from ..context import BenchContext
from ..parse.copy_parse import exit_ok, parse_copy
from ..parse.iperf3_parse import Iperf3Result, parse_iperf3_json
from ..phases.nas_port import NasPort, counters
from ..phases.nas_share import NasShare
from .nas_witness import check_copy_on_nas_clock, check_copy_on_port_timeline, check_iperf3_served
from ...join_protocol.limits import BASE_PORT
from ..phases.network import LinkUnderTest, NetMeasurement, server_report, to_measurement, wait_listening
from ..phases.cache_policy import file_size, reading
from ..phases.pool_presets import PRESETS, PresetName, smb_copy_size
from ..phases.client_cpu_results import CpuOfCopy, over_copies as client_cpu_over
from .client_cpu import checked_cpu
from .port_timeline import PortTimeline, busy_seconds, carrying_seconds
from .asking import ask, asked
from ...join_protocol.messages import Submission
from .session import BenchSession, JoinedClient
from .session_probe import SessionProbe
from ..phases.share_scratch import close_share_scratch, open_share_scratch
from ..parse.smb_multichannel_parse import parse_multichannel_connections
from ..phases.smb_results import SmbBenchResult, SmbDirection, SmbMultichannel
from ..phases.smb_probes import SmbSession, cpu_percent, main_smbd_on, smbd_ticks_on
from ..phases.smbd_cpu_limit import CpuCgroup, CpuStat, find_cpu_cgroup, over_copies, read_cpu_stat
from ...backends.host_os import HostOs
from ..stats import Threshold, settled, summarize

Around = Callable[[str, int], AbstractContextManager]  # (direction, streams) -> a context around one test
LINE_FULL_PERCENT = 97.0  # one stream at this share of the line's goodput has filled it
SMB_MIN_WIRE_RATIO = 0.98  # SMB adds headers: the NAS's port carries at least the file's bytes


def link_of(client: JoinedClient, nas: str, port: NasPort) -> LinkUnderTest:
    return LinkUnderTest(name=f"{client.name}-{nas}", client=client.name, server=nas,
                         server_address=client.local_address, client_address=client.peer_address,
                         line_rate_bps=port.line_rate_bps, mtu=port.mtu)


def measure_joined_link(ctx: BenchContext, session: BenchSession, client: JoinedClient, nas: str, port: NasPort,
                        *, streams: int, seconds: int, omit: int, tcp_port: int = BASE_PORT,
                        skip_when_line_full: bool = False, around: Around | None = None,
                        ) -> tuple[list[NetMeasurement], list[str]]:
    """1 stream and N streams, read (the NAS sends) and write, iperf3 on the client against a server on
    the NAS bound to the link; every test's bytes checked on the NAS's port. ``skip_when_line_full``: leave
    out the N-stream test of a direction where one stream already reached LINE_FULL_PERCENT of the line's
    goodput (more streams cannot carry more, and the verdict's one-stream advice cannot fire). Returns the
    measurements and, for each test left out, why. ``around(direction, streams)``: a context entered
    around each test's own counters (a LAGG's verify reads its members' there too)."""
    link = link_of(client, nas, port)
    plan = [(d, s) for s in sorted({1, streams}) for d in ("read", "write")]
    out: list[NetMeasurement] = []
    skipped: list[str] = []
    for i, (direction, n) in enumerate(plan):
        one = next((m for m in out if m.direction == direction and m.streams == 1), None)
        if skip_when_line_full and n > 1 and one and (one.percent_of_ceiling or 0) >= LINE_FULL_PERCENT:
            skipped.append(f"{direction} {n} streams: not run, 1 stream already reached "
                           f"{one.percent_of_ceiling:.1f}% of the line's {one.ceiling_bps / 1e9:.3g} Gb/s goodput")
            continue
        ctx.report(100 * i / len(plan), f"iperf3 {link.name} {direction} {n} stream(s)")
        argv = ["iperf3", "-s", "-1", "-J", "-B", link.server_address, "-p", str(tcp_port)]
        server = ctx.spawn(nas, argv, log_name=f"iperf3-{client.name}-{tcp_port}", stdout_pipe=True)
        started, answered = time.time(), False
        try:
            wait_listening(ctx, nas, tcp_port, server, program="iperf3 server")
            with around(direction, n) if around else contextlib.nullcontext():
                before = counters(ctx, nas, port)
                instruction, sub = asked(ctx, session, client, "iperf3",
                                          {"server": link.server_address, "port": tcp_port, "streams": n,
                                           "seconds": seconds, "omit": omit, "reverse": direction == "read",
                                           "cpu": True},
                                          timeout=seconds + omit + 60, tool="iperf3")
                checked_cpu(client.name, "iperf3", sub, session.nas_seconds(client, instruction))
                after = counters(ctx, nas, port)
            answered = True
        finally:
            served = server_report(server, wait=answered)  # after its one test it ends by itself
            ctx.raw.append(RawOutput(tool="iperf3 server", argv=argv, exit_code=server.returncode, stdout=served,
                                     started=started, seconds=max(0.0, time.time() - started)))
        out.append(_net_result(link, client, port, direction, n, seconds, sub, before, after, served))
        ctx.sample(phase=f"network {link.name} {direction} {n} stream(s)", bytes_per_s=out[-1].goodput_bps / 8)
    ctx.report(100, f"iperf3 {link.name} done")
    return out, skipped


def parsed_iperf3(client: JoinedClient, direction: str, streams: int, sub: Submission) -> Iperf3Result:
    """A desktop's iperf3 answer, parsed on the NAS and checked: it ran, and it ran the test asked for
    (what the NAS's own port and server saw of it is checked next: _net_result, lagg/joined.py)."""
    try:
        result = parse_iperf3_json(sub.stdout)
    except ToolOutputError as exc:
        raise ToolOutputError(f"{client.name}: {exc.message}") from exc
    if sub.exit_code != 0:
        raise ToolOutputError(f"iperf3 on {client.name} exited with {sub.exit_code}: {sub.stderr.strip()[:300]}")
    if result.streams != streams or result.reverse != (direction == "read"):
        raise ToolOutputError(f"{client.name} ran iperf3 with {result.streams} stream(s), reverse={result.reverse}; "
                              f"the NAS asked for {streams}, reverse={direction == 'read'}")
    return result


def _net_result(link: LinkUnderTest, client: JoinedClient, port: NasPort, direction: str, streams: int,
                seconds: int, sub: Submission, before, after, served: str) -> NetMeasurement:
    result = parsed_iperf3(client, direction, streams, sub)
    seen = (after.tx_bytes - before.tx_bytes) if direction == "read" else (after.rx_bytes - before.rx_bytes)
    if result.receiver_bytes > seen:
        raise ToolOutputError(
            f"{client.name} reports {format_size(result.receiver_bytes)} received in iperf3 {direction}, but only "
            f"{format_size(max(0, seen))} crossed the NAS's port {port.ifname}: its numbers are not what the link "
            "carried (the run is not trusted)")
    witness = check_iperf3_served(client.name, direction, streams, seconds, result, served)
    return to_measurement(link, result, direction, sub.stdout, served=witness)


def measure_joined_smb(ctx: BenchContext, session: BenchSession, client: JoinedClient, nas: str, port: NasPort,
                       share: NasShare, storage: ScratchStorage, *, host_os: HostOs, preset: PresetName,
                       repeats: int | None, against: dict[str, list[Threshold]] | None = None,
                       goodput_bps: float | None = None, requested: int | None = None) -> SmbBenchResult:
    """Timed copies with the client's own SMB client, to the share and back, each checked on the NAS's
    port; the run's files in a scratch place of the share that the NAS removes itself. Without
    ``repeats``, each direction stops once more copies could not change the verdict (``against``: per
    direction, the figures it compares SMB with; stats.settled). ``goodput_bps``: the client's measured
    network, which sizes quick's copies (pool_presets.smb_copy_size); ``requested``: the run's smb_file."""
    preset_ = PRESETS[preset]
    adaptive, repeats = repeats is None, repeats or preset_.repeats
    scratch = open_share_scratch(ctx, storage, nas, share, f"{int(time.time())}-{session.id}-{client.name}")
    try:
        policy = scratch.policy
        arc, arc_unknowns = arc_for_run(host_os, ctx, nas, policy)
        size = file_size(policy, arc.c_max if arc else 0, smb_copy_size(preset_, goodput_bps), requested,
                         field="smb_file")
        remote = scratch.remote_dir(client.name)
        clk = int(ctx.run(nas, ["getconf", "CLK_TCK"], timeout=10, record=False).stdout.strip() or 100)
        smb = {"server": client.local_address, "share": share.name, "size": size}
        copy_timeout = 120 + 2 * size / MiB
        ctx.report(0, f"smb: {client.name} makes {format_size(size)} of random data")
        checked(ask(ctx, session, client, "smb", {**smb, "op": "prepare", "remote": remote}, timeout=copy_timeout,
                      tool="smb prepare"), client, "prepare")
        smbd = _smbd_pid(ctx, nas)
        cgroup = find_cpu_cgroup(ctx, nas, smbd) if smbd else None
        writes, wticks, wwire, wlimits, wcpu = [], [], [], [], []
        session_facts, channels, reported = None, None, (None, None)
        enough_w = enough_r = None
        for i in range(repeats):
            ctx.report(5 + 45 * i / repeats, f"smb write {client.name} -> {nas} run {i + 1}/{repeats}")
            probe = SessionProbe(ctx, nas, share, client.peer_address) if i == 0 else None
            try:
                writes.append(_copy(ctx, session, client, nas, port, smb, "write", f"{remote}\\f{i}.dat", size,
                                    wticks, wwire, copy_timeout, cgroup, wlimits, wcpu))
            finally:
                if probe:
                    session_facts, channels = probe.stop()
            if i == 0 and client.info.os == "windows":
                reported = _client_channels(ctx, session, client, smb, remote)
            if adaptive and (enough_w := settled(writes, repeats, (against or {}).get("write"))):
                break
        written = len(writes) * size
        if not policy.uncached:
            ctx.report(50, f"smb: pushing the last file out of {nas}'s ARC")
            checked(ask(ctx, session, client, "smb", {**smb, "op": "put", "remote": f"{remote}\\evict.dat"},
                          timeout=copy_timeout, tool="smb evict"), client, "put")
            written += size
        reads, rticks, rwire, rlimits, rcpu = [], [], [], [], []
        arc_total = ArcDelta(hits=0, misses=0)
        ctx.report(50, f"smb: waiting for {nas}'s pool to finish writing the copies")
        write_back = (storage.settle_writes(scratch.dataset.split("/")[0]) if scratch.dataset
                      else "not waited: the share's directory is not a ZFS dataset tengig found")
        with reading(storage, policy, sequential=True):
            for i in range(len(writes)):  # each file written is read once at most
                ctx.report(50 + 45 * i / repeats, f"smb read {nas} -> {client.name} run {i + 1}/{len(writes)}")
                host_os.drop_caches(ctx, nas)
                a0 = host_os.read_arc(ctx, nas) if arc is not None else None
                reads.append(_copy(ctx, session, client, nas, port, smb, "read", f"{remote}\\f{i}.dat", size,
                                   rticks, rwire, copy_timeout, cgroup, rlimits, rcpu))
                if a0 is not None:
                    arc_total = arc_total + delta(a0, host_os.read_arc(ctx, nas))
                if adaptive and (enough_r := settled(reads, len(writes), (against or {}).get("read"))):
                    break
        ctx.report(100, f"smb {client.name} done")
        return SmbBenchResult(
            client=client.name, server=nas, engine=f"{client.info.os} client", file_size=size, session=session_facts,
            multichannel=SmbMultichannel(enabled=share.multichannel, read_from=share.multichannel_from,
                                         channels=channels.count if channels else None,
                                         nas_addresses=channels.addresses if channels else [],
                                         client_channels=reported[0], client_report=reported[1]),
            write=SmbDirection(direction="write",
                               bytes_per_s=summarize(writes, planned=repeats, stopped_because=enough_w),
                               bytes_per_run=size,
                               wire_bytes=wwire, smbd_cpu_percent=cpu_percent(wticks, writes, size, clk),
                               smbd_cpu_limit=over_copies(cgroup, wlimits), client_cpu=client_cpu_over(wcpu)),
            read=SmbDirection(direction="read",
                              bytes_per_s=summarize(reads, planned=len(writes), stopped_because=enough_r),
                              bytes_per_run=size,
                              wire_bytes=rwire,
                              smbd_cpu_percent=cpu_percent(rticks, reads, size, clk),
                              arc_hit_ratio=arc_total.hit_ratio if arc is not None else None, write_back=write_back,
                              smbd_cpu_limit=over_copies(cgroup, rlimits), client_cpu=client_cpu_over(rcpu)),
            cache_policy=policy, bytes_written=written, dataset=scratch.dataset, dataset_properties=scratch.properties,
            unknowns=smb_unknowns(smbd, cgroup, session_facts) + arc_unknowns,
        )
    finally:
        close_share_scratch(ctx, storage, scratch)


def smb_unknowns(smbd: int | None, cgroup: CpuCgroup | None, session: SmbSession | None) -> list[str]:
    """What the NAS could not see of the copies, named with why (never left as a silent blank)."""
    out = []
    if smbd is None:
        out.append("smbd's CPU and CPU limit: no smbd process is visible to tengig (as TrueNAS's app it needs the "
                   "host's PID namespace: pid: host in its compose file)")
    elif cgroup is None:
        out.append(f"smbd's CPU limit: the CPU cgroup of smbd (pid {smbd}) is not readable here")
    if session is None:
        out.append("the SMB session (dialect, signing, encryption): smbstatus did not show it (not installed here, "
                   "or the session ended before it looked)")
    return out


def checked(sub: Submission, client: JoinedClient, op: str) -> Submission:
    if not exit_ok(sub.argv, sub.exit_code):
        output = (sub.stderr + sub.stdout).strip()
        raise ToolOutputError(f"the SMB {op} on {client.name} failed (exit {sub.exit_code}): {output[-300:]}")
    return sub


def parsed_copy(sub: Submission, client: JoinedClient, direction: Literal["read", "write"], size: int):
    """A client's copy of ``size`` bytes read from what its tool printed (smbclient or robocopy), and
    checked to have succeeded; errors name the client."""
    try:
        result = parse_copy(sub.argv, sub.stderr + sub.stdout, direction=direction, expected_bytes=size,
                            exit_code=sub.exit_code)
    except ToolOutputError as exc:
        raise ToolOutputError(f"{client.name}: {exc.message}") from exc
    checked(sub, client, "get" if direction == "read" else "put")
    return result


def _copy(ctx: BenchContext, session: BenchSession, client: JoinedClient, nas: str, port: NasPort, smb: dict,
          direction: Literal["read", "write"], remote: str, size: int, ticks: list[int], wire: list[int],
          timeout: float, cgroup: CpuCgroup | None, limits: list[tuple[CpuStat, CpuStat]],
          cpu: list[CpuOfCopy]) -> float:
    before = counters(ctx, nas, port)
    l0 = read_cpu_stat(ctx, nas, cgroup) if cgroup else None
    t0 = smbd_ticks_on(ctx, nas)
    reader = ctx.port_reader(nas, port.ifname)
    timeline = PortTimeline(reader) if reader else None
    try:
        instruction, sub = asked(ctx, session, client, "smb",
                                  {**smb, "op": "get" if direction == "read" else "put", "remote": remote,
                                   "cpu": True},
                                  timeout=timeout, tool="smb copy")
    finally:
        samples = timeline.stop() if timeline else []
    t1 = smbd_ticks_on(ctx, nas)
    l1 = read_cpu_stat(ctx, nas, cgroup) if cgroup else None
    after = counters(ctx, nas, port)
    result = parsed_copy(sub, client, direction, size)
    seen = (after.tx_bytes - before.tx_bytes) if direction == "read" else (after.rx_bytes - before.rx_bytes)
    if seen < SMB_MIN_WIRE_RATIO * size:
        raise ToolOutputError(
            f"{client.name} reports an SMB {direction} of {format_size(size)}, but only {format_size(max(0, seen))} "
            f"crossed the NAS's port {port.ifname}: not measured over the link (the run is not trusted)")
    window = session.nas_seconds(client, instruction)
    check_copy_on_nas_clock(client.name, direction, size, result.bytes_per_s, seen, window, port,
                            carrying_seconds(samples, direction))
    used = checked_cpu(client.name, f"SMB {direction}", sub, window)
    check_copy_on_port_timeline(client.name, direction, size, result.bytes_per_s,
                                busy_seconds(samples, direction), port)
    wire.append(seen)
    if t0 is not None and t1 is not None:
        ticks.append(t1 - t0)
    if l0 is not None and l1 is not None:
        limits.append((l0, l1))
    if used is not None:
        cpu.append(used)
    ctx.sample(phase=f"smb {direction} {client.name}", bytes_per_s=result.bytes_per_s)
    return result.bytes_per_s


def _client_channels(ctx: BenchContext, session: BenchSession, client: JoinedClient, smb: dict,
                     remote: str) -> tuple[int | None, str | None]:
    """What a Windows desktop says of its SMB channels right after its first copy (its kit runs
    Get-SmbMultichannelConnection): (the channels it uses, that in a line), or (None, why it could not say)."""
    sub = ask(ctx, session, client, "smb", {**smb, "op": "channels", "remote": remote}, timeout=60,
               tool="smb channels")
    if sub.exit_code != 0:
        return None, f"{client.name} could not list its channels: {(sub.stderr or sub.stdout).strip()[:300]}"
    try:
        found = parse_multichannel_connections(sub.stdout)
    except ToolOutputError as exc:
        return None, f"{client.name}: {exc.message}"
    return found.channels, found.text()


def _smbd_pid(ctx: BenchContext, nas: str) -> int | None:
    """The NAS's main smbd (its per-client children are forked into its cgroup)."""
    found = main_smbd_on(ctx, nas)
    return found.pid if found else None
