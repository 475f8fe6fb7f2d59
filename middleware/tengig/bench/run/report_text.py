"""A benchmark report as text for a terminal (pure): per client, the ceilings chain next to the target,
the verdict and the advice; the pool's tests with median, CV and ARC hit ratio. Units always printed:
MB/s = 10^6 bytes/s (as disk makers and the targets use), MiB/s = 2^20 bytes/s, Gb/s = 10^9 bits/s.
Names and words from desktops (an interface in the MTU advice, a tool's output) are printed escaped."""
from __future__ import annotations

from ...text import shown
from ...units import MiB, format_mb_s, format_size
from ...verdict.models import Ceiling, DirectionVerdict, Verdict
from ..phases.scaling import ScalingResult
from ..phases.smallfiles_results import Percentiles, SmallFilesResult
from ..phases.smb_results import SmbMultichannel
from ..stats import Repeated
from .suite import BenchReport, ClientReport

COMPONENTS = ("pool", "link", "network", "smb")


def _cell(ceilings: list[Ceiling], component: str) -> str:
    cs = [c for c in ceilings if c.component == component]
    if not cs:
        return "-"
    c = max(cs, key=lambda c: c.bytes_per_s)
    return format_mb_s(c.bytes_per_s) + (" (est)" if c.provenance == "estimated" else "")


def _result(d: DirectionVerdict) -> str:
    if d.beats_target is None:
        return "no target figure" if d.smb_bytes_per_s is not None else "SMB not measured"
    word = "BEATS" if d.beats_target else "loses"
    return f"{word} by {abs(d.margin_percent):.1f}%"


def verdict_table(verdict: Verdict) -> list[str]:
    head = ["", "pool", "link", "network", "SMB", "target", "result", "bottleneck"]
    rows = [head]
    for d in verdict.directions:
        rows.append([d.direction] + [_cell(d.ceilings, c) for c in COMPONENTS]
                    + [format_mb_s(d.target_bytes_per_s), _result(d), d.bottleneck or "-"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


def _early(r: Repeated) -> str:
    if not r.stopped_early:
        return ""
    return f"; {len(r.values)} of {r.planned} runs: {r.stopped_because or 'fewer files to read than planned'}"


def _client_lines(c: ClientReport) -> list[str]:
    out = []
    link = c.link
    if link:
        rate = f"{link.line_rate_bps / 1e9:g} Gb/s" if link.line_rate_bps else "unshaped"
        out.append(f"client {c.client} over {link.name} ({rate}, MTU {link.mtu})")
    for m in c.network:
        pct = f", {m.percent_of_ceiling:.1f}% of the {m.ceiling_bps / 1e9:.3g} Gb/s ceiling" if m.percent_of_ceiling else ""
        out.append(f"  iperf3 {m.direction:5} {m.streams} stream(s): {m.goodput_bps / 1e9:.3f} Gb/s "
                   f"({format_mb_s(m.goodput_bps / 8)}){pct}, {m.retransmits_text()}")
    out += [f"  iperf3 {line}" for line in c.network_skipped]
    if c.smb:
        s = c.smb
        sess = s.session
        how = f"{sess.dialect}, signing {sess.signing_degree}, encryption {sess.encryption_degree}" if sess else "session not observed"
        for d in (s.read, s.write):
            cv = f", CV {d.bytes_per_s.cv_percent:.1f}%" if d.bytes_per_s.cv_percent is not None else ""
            cv += _early(d.bytes_per_s)
            cpu = f", smbd CPU {d.smbd_cpu_percent:.0f}% of a core" if d.smbd_cpu_percent is not None else ""
            lim = d.smbd_cpu_limit
            if lim and lim.limit_cores is not None:
                held = f", throttled in {lim.throttled_percent:.0f}% of periods" if lim.throttled_percent is not None else ""
                cpu += f" (its cgroup {lim.cgroup} allows {lim.limit_cores:.2g} of a core{held})"
            if d.client_cpu is not None:
                cpu += f", {c.client}'s SMB client {d.client_cpu.cores:.2f} of a core (it may use {d.client_cpu.cpus:.2g})"
            arc = f", ARC hits {100 * d.arc_hit_ratio:.1f}%" if d.arc_hit_ratio is not None else ""
            out.append(f"  SMB {d.direction:5} {format_mb_s(d.bytes_per_s.median)} = {d.bytes_per_s.median / MiB:.1f} MiB/s "
                       f"(median of {len(d.bytes_per_s.values)} x {s.file_size // MiB} MiB{cv}{cpu}{arc})")
        if s.read.write_back:
            out.append(f"  SMB reads started once the pool had finished writing the copies: {s.read.write_back}")
        out.append(f"  SMB session: {how}")
        out += [f"  unknown: {what}" for what in s.unknowns]
        if s.multichannel:
            out.append(f"  SMB multichannel: {multichannel_text(s.multichannel)}")
    if c.small_files:
        out += _small_files_lines(c.small_files)
    if c.verdict:
        out += ["", *("  " + line for line in verdict_table(c.verdict)), "", "  " + c.verdict.summary]
        if c.verdict.small_files:
            out.append("  " + c.verdict.small_files)
        for a in c.verdict.advice:
            out.append(f"  - [{a.severity}] {a.text}")
    if c.own_disk:
        d = c.own_disk
        out += ["", f"  Own disk of {c.client} ({d.path}): {format_mb_s(d.read_bytes_per_s)} read, {format_mb_s(d.write_bytes_per_s)} "
                f"write ({d.method}, {d.file_size // MiB} MiB, {d.how})"]
    if c.own_disk_verdict:
        out.append("  " + c.own_disk_verdict.summary)
    elif c.own_disk_note:
        out.append(f"  Own disk: {c.own_disk_note}")
    if c.lost:
        out.append(f"  lost during the run: {c.lost} (what it measured before is kept; no verdict for it)")
    return out


def scaling_lines(scaling: ScalingResult) -> list[str]:
    """The thread sweep per direction (MB/s per thread count, where it stopped and why) and each disk."""
    out = [f"  threads (SEQ1M Q8 each, up to the NAS's {scaling.cores} cores):"]
    for sweep in scaling.sweeps:
        steps = ", ".join(f"{s.threads}: {format_mb_s(s.bytes_per_s)}" for s in sweep.steps)
        out.append(f"    {sweep.direction:5} {steps}; {sweep.stopped}; the verdict uses {sweep.best_threads}")
    for m in scaling.members:
        wait = f"{m.wait_ms:.1f} ms average wait" if m.wait_ms is not None else "wait unknown"
        busy = f", busy {m.busy_percent:.0f}%" if m.busy_percent is not None else ""
        out.append(f"    disk {m.name}: {wait}{busy}")
    if scaling.dragging:
        out.append(f"    stands out: {scaling.dragging}")
    for r in scaling.member_reads:
        out.append(f"    {r.device} read alone: {format_mb_s(r.bytes_per_s)} ({r.bytes // MiB} MiB)")
    return out


def _ms(p: Percentiles | None) -> str:
    return f"p50 {p.p50_ms:.2f} / p95 {p.p95_ms:.2f} / p99 {p.p99_ms:.2f} ms of {p.count}" if p else ""


def _small_files_lines(small: SmallFilesResult) -> list[str]:
    rtt = f", round trip {small.round_trip_ms:.3f} ms (the NAS's ping)" if small.round_trip_ms is not None else ""
    out = [f"  Small files ({small.sizes[0].engine if small.sizes else '-'}{rtt}):"]
    for s in small.sizes:
        for where, ops in (("share", s.ops), ("own disk", s.own_disk or [])):
            for o in ops:
                rate = f", {format_mb_s(o.bytes_per_s)}" if o.op in ("write", "read") else ""
                each = f", per file {_ms(o.per_file)}" if o.per_file else ""
                each += f", open {_ms(o.open)}, close {_ms(o.close)}" if o.open and o.close else ""
                cpu = f", smbd {o.smbd_cpu_percent:.0f}% of a core" if o.smbd_cpu_percent is not None else ""
                out.append(f"    {format_size(s.size):>7} {where:8} {o.op:6} {o.files} files: "
                           f"{o.files_per_s:,.0f} files/s{rate}{each}{cpu}")
                if o.nas_note:
                    out.append(f"      (the NAS's bound: {o.nas_note})")
    if small.own_disk_note:
        out.append(f"    own disk: {small.own_disk_note}")
    if small.note:
        out.append(f"    {small.note}")
    return out


def report_text(report: BenchReport) -> str:
    out = [f"tengig bench {report.kind} on {report.system} (preset {report.preset}, target {report.target})"]
    if report.pool:
        p = report.pool
        arc_max = "unknown" if p.arc_max_bytes is None else f"{p.arc_max_bytes // MiB} MiB"
        out.append(f"pool {p.pool}: working set {p.working_set_bytes // MiB} MiB per run (ARC max {arc_max}), "
                   f"recordsize {p.recordsize_bytes // 1024} KiB, compressratio {p.compressratio:.2f}x")
        if p.cache_policy:
            out.append(f"  ARC kept out: {p.cache_policy.note}")
        out += [f"  unknown: {what}" for what in p.unknowns]
        for ph in p.phases:
            cv = f"CV {ph.bytes_per_s.cv_percent:.1f}%" if ph.bytes_per_s.cv_percent is not None else "1 run"
            cv += _early(ph.bytes_per_s)
            arc = f", ARC hits {100 * ph.arc_hit_ratio:.1f}%" if ph.arc_hit_ratio is not None else ""
            out.append(f"  {ph.test:12} {ph.direction:5} {format_mb_s(ph.bytes_per_s.median):>12} {ph.iops.median:9.0f} IOPS "
                       f"({cv}{arc})")
        if p.scaling:
            out += scaling_lines(p.scaling)
    for c in report.clients:
        out += [""] + _client_lines(c)
    if report.smb_concurrent:
        sc = report.smb_concurrent
        out += ["", f"SMB, {len(sc.clients)} clients at once ({sc.engine}, {sc.file_size // MiB} MiB each):"]
        for d in (sc.read, sc.write):
            # in the run's order of clients: a stored run's JSON keeps its keys sorted
            order = [c for c in sc.clients if c in d.per_client] + [c for c in d.per_client if c not in sc.clients]
            each = ", ".join(f"{c} {format_mb_s(d.per_client[c].median)}" for c in order)
            spread = (f", started within {1000 * max(d.start_spread_seconds):.0f} ms of each other"
                      if d.start_spread_seconds else "")
            out.append(f"  {d.direction:5} aggregate {format_mb_s(d.aggregate.median)} ({each}{spread})")
        out += [f"  unknown: {what}" for what in sc.unknowns]
    if report.aggregate_verdict:
        v = report.aggregate_verdict
        out += ["", "Aggregate verdict (all clients at once):", *("  " + line for line in verdict_table(v)), "",
                "  " + v.summary]
        out += [f"  - [{a.severity}] {a.text}" for a in v.advice]
    if report.bytes_written is not None:
        out += ["", f"bytes written to the NAS's pool by this run: {format_size(report.bytes_written)}"]
    out += [f"removed first, left by an earlier run: {name}" for name in report.swept]
    out += [f"left behind: {what}" for what in report.left_behind]
    out += ["", "MB/s = 10^6 bytes/s, MiB/s = 2^20 bytes/s, Gb/s = 10^9 bits/s; (est) = computed from physics "
            "(docs/physics.md §1), everything else measured."]
    return shown("\n".join(out), lines=True)


def multichannel_text(mc: SmbMultichannel) -> str:
    """'off (testparm /etc/samba/smb.conf); the session's channels: not listed by this Samba (before 4.18)'"""
    state = {True: "on", False: "off", None: "unknown"}[mc.enabled]
    where = f" ({mc.read_from})" if mc.read_from else ""
    if mc.channels is not None:
        used = f"{mc.channels} channel(s)" + (f" to {', '.join(mc.nas_addresses)}" if mc.nas_addresses else "")
    else:
        used = "not listed by this Samba (before 4.18)"
    client = f"; {mc.client_report}" if mc.client_report else ""
    return f"{state}{where}; the session's channels: {used}{client}"
