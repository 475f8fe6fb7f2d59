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
from .models import Environment, RunRecord
from .redact import redacted

EXPORT_FORMAT = "tengig-results"
EXPORT_VERSION = 1
CSV_COLUMNS = ("run_id", "started_iso", "kind", "status", "metric", "value", "unit")
# Metric key suffix -> unit (first match wins: longer suffixes first).
UNIT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_bytes_per_s", "B/s"),
    ("_bps", "bit/s"),
    ("_seconds", "s"),
    ("_iops", "IOPS"),
    ("_bytes", "B"),
    ("_percent", "%"),
)


def unit_for(metric: str) -> str:
    """The unit a metric's key names by its suffix ('' if none): 'read_bytes_per_s' -> 'B/s'."""
    key = metric.rsplit(".", 1)[-1].lower()
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
    return {
        "a": _summary(a),
        "b": _summary(b),
        "metrics": metrics,
        "only_in_a": sorted(na.keys() - nb.keys()),
        "only_in_b": sorted(nb.keys() - na.keys()),
        "environment": environment,
    }


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
