"""Pure functions over stored runs: compare two, render JSON and CSV (secrets redacted: redact.py). No
database here.

A metric is a numeric leaf of a run's results, named by its dotted path ('smb.read_bytes_per_s',
list items by index: 'net.streams.0.goodput_bps'); its unit comes from the key's suffix."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ..errors import ValidationError
from ..units import format_mb_s
from ..verdict.advice import CHAIN_ORDER, best
from ..verdict.models import Verdict
from .models import Environment, RunRecord
from .redact import redacted

EXPORT_FORMAT = "tengig-results"
EXPORT_VERSION = 1
CSV_COLUMNS = ("run_id", "started_iso", "kind", "status", "metric", "value", "unit")
# A ceiling that changed by at least this much between two runs "moved": less is run-to-run noise on the lab.
MOVED_PERCENT = 5.0
# Metric key suffix -> unit (first match wins: longer suffixes first).
UNIT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_bytes_per_s", "B/s"),
    ("_bps", "bit/s"),
    ("_seconds", "s"),
    ("_iops", "IOPS"),
    ("_bytes", "B"),
    ("_percent", "%"),
)
REPEATED_PARTS = frozenset({"median", "values", "mean", "min", "max"})  # statistics of the figure above them


def unit_for(metric: str) -> str:
    """The unit a metric's key names by its suffix ('' if none): 'read_bytes_per_s' -> 'B/s'. A repeated
    figure's parts take their parent's: 'smb.read.bytes_per_s.median' and '...ceilings.0.runs.1' -> 'B/s'
    (a ceiling's runs are bytes/s like the ceiling)."""
    parts = [p for p in metric.lower().split(".") if not p.isdigit()]
    while parts and parts[-1] in REPEATED_PARTS:
        parts.pop()
    key = "_" + (parts[-1] if parts else "")
    if (parts[-2:-1] and parts[-1] == "runs" and "ceilings" in parts) or (parts and parts[-1] == "aggregate") \
            or parts[-2:-1] == ["per_client"]:
        key = "_bytes_per_s"  # bytes/s by what they are: a ceiling's runs, SMB of all clients at once and of each
    for suffix, unit in UNIT_SUFFIXES:
        if key.endswith(suffix):
            return unit
    return ""


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted path, scalar) for every leaf of nested dicts and lists; list items by index."""
    if isinstance(value, Mapping):
        items: Iterable[tuple[Any, Any]] = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        yield prefix, value
        return
    for key, child in items:
        yield from leaves(child, f"{prefix}.{key}" if prefix else str(key))


def numeric_leaves(results: Mapping[str, Any]) -> dict[str, float]:
    """Numbers only: booleans and strings are facts, not measurements."""
    return {p: v for p, v in leaves(results) if isinstance(v, (int, float)) and not isinstance(v, bool)}


def compare_runs(a: RunRecord, b: RunRecord) -> dict[str, Any]:
    """Run b against run a: every metric present in both (delta = b - a; delta_percent relative to a,
    None when a is 0), the metrics only one has, and every environment value that differs."""
    missing = [
        (field, f"run {run.id} has no results to compare (status {run.status})")
        for field, run in (("a", a), ("b", b))
        if run.results is None
    ]
    if missing:
        raise ValidationError(missing)
    na, nb = numeric_leaves(a.results or {}), numeric_leaves(b.results or {})
    metrics = {}
    for path in sorted(na.keys() & nb.keys()):
        va, vb = na[path], nb[path]
        metrics[path] = {
            "a": va,
            "b": vb,
            "delta": vb - va,
            "delta_percent": (vb - va) / va * 100 if va else None,
            "unit": unit_for(path),
        }
    ea, eb = _environment_leaves(a.environment), _environment_leaves(b.environment)
    environment = {
        path: {"a": ea.get(path), "b": eb.get(path)}
        for path in sorted(ea.keys() | eb.keys())
        if ea.get(path) != eb.get(path)
    }
    ceilings = ceiling_changes(a.results or {}, b.results or {})
    return {
        "a": _summary(a),
        "b": _summary(b),
        "metrics": metrics,
        "only_in_a": sorted(na.keys() - nb.keys()),
        "only_in_b": sorted(nb.keys() - na.keys()),
        "environment": environment,
        "ceilings": ceilings,
        "moved": moved_lines(ceilings),
    }


def _verdicts(results: Mapping[str, Any]) -> dict[str, Verdict]:
    """Scope -> verdict of a stored bench report: 'aggregate' (all clients at once), then each client's name."""
    found: dict[str, Verdict] = {}
    docs = [("aggregate", results.get("aggregate_verdict"))]
    docs += [(c.get("client"), c.get("verdict")) for c in results.get("clients") or [] if isinstance(c, Mapping)]
    for scope, doc in docs:
        if isinstance(scope, str) and isinstance(doc, Mapping):
            try:
                found[scope] = Verdict.model_validate(doc)
            except ValueError:
                continue  # a verdict of another shape (an older tengig's) has no chain to compare
    return found


def ceiling_changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per verdict scope (aggregate, each client), direction and component of the chain: the ceiling in
    each run (bytes/s, the one the verdict used: measured over estimated), the change, whether it moved
    (MOVED_PERCENT, or present in one run only) and whether it was the bottleneck in each."""
    va, vb = _verdicts(a), _verdicts(b)
    rows = []
    for scope in [*va, *(s for s in vb if s not in va)]:
        da = {d.direction: d for d in (va[scope].directions if scope in va else [])}
        db = {d.direction: d for d in (vb[scope].directions if scope in vb else [])}
        for direction in ("read", "write"):
            if direction not in da and direction not in db:
                continue
            for component in CHAIN_ORDER:
                ca = best(da[direction].ceilings, component) if direction in da else None
                cb = best(db[direction].ceilings, component) if direction in db else None
                if ca is None and cb is None:
                    continue
                x, y = (c.bytes_per_s if c else None for c in (ca, cb))
                pct = (y - x) / x * 100 if x and y is not None else None
                rows.append({
                    "scope": scope, "direction": direction, "component": component, "a": x, "b": y,
                    "delta_percent": pct,
                    "moved": (x is None) != (y is None) or (pct is not None and abs(pct) >= MOVED_PERCENT),
                    "bottleneck_a": direction in da and da[direction].bottleneck == component,
                    "bottleneck_b": direction in db and db[direction].bottleneck == component,
                })
    return rows


def moved_lines(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The ceilings that moved, in words: 'aggregate read: link 129.5 -> 235.4 MB/s (+81.8%), the bottleneck
    in both'. A bottleneck that changed is said even when no figure moved."""
    out = []
    for r in rows:
        neck = {(True, True): ", the bottleneck in both", (True, False): ", the bottleneck in a only",
                (False, True): ", the bottleneck in b only"}.get((r["bottleneck_a"], r["bottleneck_b"]), "")
        if not r["moved"] and neck not in (", the bottleneck in a only", ", the bottleneck in b only"):
            continue
        x = "-" if r["a"] is None else format_mb_s(r["a"]).removesuffix(" MB/s")
        y = "- MB/s" if r["b"] is None else format_mb_s(r["b"])
        pct = f" ({r['delta_percent']:+.1f}%)" if r["delta_percent"] is not None else ""
        out.append(f"{r['scope']} {r['direction']}: {r['component']} {x} -> {y}{pct}{neck}")
    return out


def runs_to_json(runs: Sequence[RunRecord], *, exported: float) -> str:
    doc = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported": iso(exported),
        "runs": [redacted(r).model_dump(mode="json") for r in runs],
    }
    return json.dumps(doc, indent=2, allow_nan=False)


def runs_to_csv(runs: Sequence[RunRecord]) -> str:
    """One row per (run, metric path, value). A run without results (failed, aborted, running)
    gets one row with metric 'error' and its error text: visible, and not a number."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for run in map(redacted, runs):
        head = (run.id, iso(run.started), run.kind, run.status)
        if run.results is None:
            writer.writerow((*head, "error", run.error or "", ""))
            continue
        for path, value in leaves(run.results):
            if value is None:
                continue  # "not measured" is no value
            text = ("true" if value else "false") if isinstance(value, bool) else value
            writer.writerow((*head, path, text, unit_for(path)))
    return out.getvalue()


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="seconds")


def _summary(run: RunRecord) -> dict[str, Any]:
    return {"id": run.id, "kind": run.kind, "status": run.status, "started": run.started}


def _environment_leaves(env: Environment | None) -> dict[str, Any]:
    if env is None:
        return {}
    doc = env.model_dump(mode="json")
    doc["nics"] = {nic.pop("name"): nic for nic in doc["nics"]}  # compare NICs by name, not position
    return dict(leaves(doc))
