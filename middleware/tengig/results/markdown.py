"""One stored run as a Markdown report to paste into a forum post or an issue (pure): the verdict line,
the chain table per direction, the per-client and aggregate figures, how sure the verdict is, the
environment it ran in and the exact tool versions. Read from the run's stored JSON (the bench report's
dump), so a run of any tengig version renders; a run whose results are not a bench report gets a table
of its metrics. Nothing secret: the run is redacted first (redact.py), and inputs and raw outputs
(where a token or a password could sit) are not part of the report at all.

Units as the terminal report prints them: MB/s = 10^6 bytes/s, MiB = 2^20 bytes, Gb/s = 10^9 bits/s."""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..units import MiB, format_mb_s
from ..verdict.confidence import how_sure
from ..verdict.models import Verdict
from .export import iso, numeric_leaves, unit_for
from .models import Environment, RunRecord
from .redact import redacted

COMPONENTS = ("pool", "link", "network", "smb")
UNITS_NOTE = ("MB/s = 10^6 bytes/s, MiB = 2^20 bytes, Gb/s = 10^9 bits/s; (est) = computed from physics, "
              "everything else measured.")
_SPECIAL = re.compile(r"[\\`*\[\]<>|#~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")  # '_' inside a word is no emphasis


def md(text: Any) -> str:
    """Any text as literal Markdown on one line: its specials escaped, line breaks as spaces."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(0), " ".join(str(text).split()))


def table(head: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A GitHub-flavoured Markdown table; every cell escaped (a '|' in a name cannot split a row)."""
    lines = ["| " + " | ".join(md(h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return lines


def _median(repeated: Mapping[str, Any] | None) -> float | None:
    return None if not repeated else repeated.get("median")


def _runs(repeated: Mapping[str, Any] | None) -> str:
    if not repeated:
        return "-"
    values = repeated.get("values") or []
    cv = repeated.get("cv_percent")
    return f"{len(values)}" + (f", CV {cv:.1f}%" if cv is not None else "")


def _cell(ceilings: Sequence[Any], component: str) -> str:
    found = [c for c in ceilings if c.component == component]
    if not found:
        return "-"
    best = max(found, key=lambda c: c.bytes_per_s)
    return format_mb_s(best.bytes_per_s) + (" (est)" if best.provenance == "estimated" else "")


def _result(d: Any) -> str:
    if d.beats_target is None:
        return "no target figure" if d.smb_bytes_per_s is not None else "SMB not measured"
    return f"{'BEATS' if d.beats_target else 'loses'} by {abs(d.margin_percent):.1f}%"


def verdict_line(verdict: Verdict) -> str:
    """'read BEATS by 5.2% (bottleneck link); write loses by 1.5% (bottleneck link)'."""
    return "; ".join(f"{d.direction} {_result(d)} (bottleneck {d.bottleneck or 'unknown'})" for d in verdict.directions)


def verdict_section(title: str, verdict: Verdict, level: int = 3) -> list[str]:
    out = [f"{'#' * level} {md(title)}", "", f"Against **{md(verdict.target.title)}** ({md(verdict.target.name)}).", ""]
    out += table(["direction", "pool", "link", "network", "SMB", "target", "result", "bottleneck"],
                 [[d.direction, *(_cell(d.ceilings, c) for c in COMPONENTS), format_mb_s(d.target_bytes_per_s), _result(d),
                   d.bottleneck or "-"] for d in verdict.directions])
    out += ["", md(verdict.summary), "", f"**{md(how_sure(verdict.directions))}**", ""]
    if verdict.advice:
        out += ["Advice:", ""] + [f"- \\[{a.severity}\\] {md(a.text)}" for a in verdict.advice]
    else:
        out += ["Advice: none."]
    return out + [""]


def _verdict(doc: Any) -> Verdict | None:
    if not isinstance(doc, Mapping):
        return None
    try:
        return Verdict.model_validate(doc)
    except PydanticValidationError:
        return None


def _client_section(client: Mapping[str, Any]) -> list[str]:
    name = client.get("client", "?")
    out = [f"## Client {md(name)}", ""]
    link = client.get("link") or {}
    if link:
        rate = f"{link['line_rate_bps'] / 1e9:g} Gb/s" if link.get("line_rate_bps") else "unshaped"
        out += [f"Over {md(link.get('name', '?'))} ({rate}, MTU {link.get('mtu', '?')} bytes).", ""]
    network = client.get("network") or []
    if network:
        out += table(["iperf3", "streams", "goodput", "MB/s", "retransmits", "of the link's ceiling"],
                     [[m["direction"], m["streams"], f"{m['goodput_bps'] / 1e9:.3f} Gb/s", format_mb_s(m["goodput_bps"] / 8),
                       "-" if m.get("retransmits") is None else m["retransmits"],
                       "-" if m.get("percent_of_ceiling") is None else f"{m['percent_of_ceiling']:.1f}%"]
                      for m in network]) + [""]
    smb = client.get("smb")
    if smb:
        rows = []
        for d in (smb["read"], smb["write"]):
            cpu = d.get("smbd_cpu_percent")
            arc = d.get("arc_hit_ratio")
            rows.append([d["direction"], format_mb_s(_median(d["bytes_per_s"])), _runs(d["bytes_per_s"]),
                         "-" if cpu is None else f"{cpu:.0f}% of a core", "-" if arc is None else f"{100 * arc:.1f}%"])
        out += table([f"SMB ({smb.get('engine', 'smbclient')}, {smb['file_size'] // MiB} MiB files)", "median", "runs",
                      "smbd CPU", "ARC hits"], rows) + [""]
        session = smb.get("session")
        if session:
            out += [f"SMB session: dialect {md(session['dialect'])}, signing {md(session['signing_degree'])} "
                    f"({md(session.get('signing_cipher', '-'))}), encryption {md(session['encryption_degree'])} "
                    f"({md(session.get('encryption_cipher', '-'))}).", ""]
        else:
            out += ["SMB session: not observed.", ""]
    verdict = _verdict(client.get("verdict"))
    if verdict:
        out += verdict_section(f"Verdict of {name}", verdict)
    own = client.get("own_disk")
    if own:
        out += [f"Own disk of {md(name)}: {format_mb_s(own.get('read_bytes_per_s'))} read, "
                f"{format_mb_s(own.get('write_bytes_per_s'))} write ({md(own.get('method', '-'))}).", ""]
    own_verdict = _verdict(client.get("own_disk_verdict"))
    if own_verdict:
        out += [md(own_verdict.summary), ""]
    return out


def _concurrent_section(sc: Mapping[str, Any]) -> list[str]:
    clients = sc.get("clients") or []
    out = [f"## SMB, {len(clients)} clients at once", "",
           f"{md(sc.get('engine', ''))}, {sc['file_size'] // MiB} MiB each.", ""]
    rows = [[d["direction"], format_mb_s(_median(d["aggregate"])), _runs(d["aggregate"]),
             *(format_mb_s(_median((d.get("per_client") or {}).get(c))) for c in clients)]
            for d in (sc["read"], sc["write"])]
    return out + table(["direction", "aggregate", "runs", *clients], rows) + [""]


def _arc_max(pool: Mapping[str, Any]) -> str:
    return "unknown" if pool.get("arc_max_bytes") is None else f"{pool['arc_max_bytes'] // MiB} MiB"


def _pool_section(pool: Mapping[str, Any]) -> list[str]:
    out = [f"## Pool {md(pool.get('pool', '?'))}", "",
           f"Working set {pool['working_set_bytes'] // MiB} MiB per run, ARC max {_arc_max(pool)}, "
           f"recordsize {pool['recordsize_bytes'] // 1024} KiB, compressratio {pool['compressratio']:.2f}x.", ""]
    out += [f"Unknown: {md(what)}." for what in pool.get("unknowns") or []] + ([""] if pool.get("unknowns") else [])
    rows = [[ph["test"], ph["direction"], format_mb_s(_median(ph["bytes_per_s"])), f"{_median(ph['iops']) or 0:.0f}",
             _runs(ph["bytes_per_s"]), "-" if ph.get("arc_hit_ratio") is None else f"{100 * ph['arc_hit_ratio']:.1f}%"]
            for ph in pool.get("phases") or []]
    out += table(["fio test", "direction", "median", "IOPS", "runs", "ARC hits"], rows) + [""]
    return out + (_scaling_section(pool["scaling"]) if pool.get("scaling") else [])


def _scaling_section(scaling: Mapping[str, Any]) -> list[str]:
    """The thread sweep: MB/s per thread count and direction, where it stopped and the thread count the verdict
    used; each disk's wait and busy time, the one that stands out, and each disk read alone when asked."""
    sweeps = scaling.get("sweeps") or []
    counts = sorted({s["threads"] for sweep in sweeps for s in sweep["steps"]})
    out = [f"### Threads ({md(scaling.get('test', 'SEQ1M Q8'))} each, up to the NAS's {scaling['cores']} cores)", ""]
    out += table(["direction", *(f"{n} thread{'s' * (n > 1)}" for n in counts), "stopped", "the verdict uses"],
                 [[sweep["direction"], *(format_mb_s(next((s["bytes_per_s"] for s in sweep["steps"] if s["threads"] == n), None))
                                         for n in counts), sweep["stopped"], sweep["best_threads"]]
                  for sweep in sweeps]) + [""]
    members = scaling.get("members") or []
    if members:
        out += table(["disk", "average wait", "busy"],
                     [[m["name"], "-" if m.get("wait_ms") is None else f"{m['wait_ms']:.1f} ms",
                       "-" if m.get("busy_percent") is None else f"{m['busy_percent']:.0f}%"] for m in members]) + [""]
    if scaling.get("dragging"):
        out += [f"Stands out: {md(scaling['dragging'])}.", ""]
    for r in scaling.get("member_reads") or []:
        out += [f"{md(r['device'])} read alone: {format_mb_s(r['bytes_per_s'])} ({r['bytes'] // MiB} MiB).", ""]
    return out


def environment_section(env: Environment | None) -> list[str]:
    out = ["## Environment", ""]
    if env is None:
        return out + ["Not recorded.", ""]
    facts = [("host", env.hostname), ("TrueNAS", env.truenas_version),
             ("OS", env.os), ("kernel", env.kernel), ("ZFS", env.zfs_version), ("pool layout", env.pool_layout),
             ("ARC max", f"{env.arc_size_bytes // MiB} MiB" if env.arc_size_bytes is not None else None)]
    facts += [(f"dataset {prop}", value) for prop, value in sorted(env.dataset_properties.items())]
    out += table(["", "value"], [[k, "unknown" if v is None else v] for k, v in facts]) + [""]
    if env.nics:
        out += table(["NIC", "speed", "MTU", "driver"],
                     [[n.name, "-" if n.speed_bps is None else f"{n.speed_bps / 1e9:g} Gb/s",
                       "-" if n.mtu is None else f"{n.mtu} bytes", n.driver or "-"] for n in env.nics]) + [""]
    out += ["### Tool versions", ""]
    out += table(["tool", "version"], [[t, v or "not found"] for t, v in sorted(env.tools.items())]) + [""]
    if env.probe_errors:
        out += ["Not read: " + "; ".join(f"{md(k)}: {md(v)}" for k, v in sorted(env.probe_errors.items())) + ".", ""]
    return out


def _metrics_section(results: Mapping[str, Any]) -> list[str]:
    rows = [[path, f"{value:g}", unit_for(path)] for path, value in numeric_leaves(results).items()]
    return ["## Figures", ""] + table(["metric", "value", "unit"], rows) + [""]


def _head(run: RunRecord, results: Mapping[str, Any]) -> list[str]:
    what = f"tengig bench {run.kind}" + (f" on {results['system']}" if results.get("system") else "")
    facts = [("run", f"{run.id} ({run.status})"), ("started", iso(run.started)),
             ("finished", iso(run.finished) if run.finished else "-")]
    for key in ("preset", "target"):
        if results.get(key):
            facts.append((key, results[key]))
    if results.get("bytes_written") is not None:
        facts.append(("written to the pool", f"{results['bytes_written'] / MiB:.0f} MiB"))
    return [f"# {md(what)}", ""] + table(["", ""], facts) + [""]


def run_to_markdown(run: RunRecord) -> str:
    """The run as one Markdown document (see the module's doc)."""
    run = redacted(run)
    results = run.results or {}
    out = _head(run, results)
    aggregate = _verdict(results.get("aggregate_verdict"))
    clients = [c for c in results.get("clients") or [] if isinstance(c, Mapping)]
    first = aggregate or _verdict(run.verdict) or next((v for c in clients if (v := _verdict(c.get("verdict")))), None)
    if first is not None:
        scope = "all clients at once" if aggregate else "this run"
        out += [f"**Verdict ({scope}):** {md(verdict_line(first))}", ""]
    elif run.error:
        out += [f"**{run.status.capitalize()}:** {md(run.error)}", ""]
    if aggregate is not None:
        out += verdict_section("Aggregate verdict (all clients at once)", aggregate, level=2)
    if results.get("smb_concurrent"):
        out += _concurrent_section(results["smb_concurrent"])
    for client in clients:
        out += _client_section(client)
    if results.get("pool"):
        out += _pool_section(results["pool"])
    if results and not clients and not results.get("pool"):
        out += _metrics_section(results)
    out += environment_section(run.environment)
    out += [f"_{md(UNITS_NOTE)}_", ""]
    return "\n".join(out)
