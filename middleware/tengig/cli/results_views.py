"""What `tengig results` prints (pure): stored runs and comparisons as rows, and rows as a table with units,
as CSV or as JSON. One row per run: when, what, the verdict in a few words (result, margin, bottleneck),
the SMB figures; a failed run's row says its error."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from ..results.fix_link import fix_link_lines
from ..text import shown
from ..units import format_mb_s

ERROR_WIDTH = 70  # a failed run's error in the list: its first words (`tengig results show` has all of it)


def when(epoch: float | None) -> str:
    return "-" if epoch is None else datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def headline_verdict(run: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The verdict a run is known by: all clients at once when there were several, else its own."""
    results = run.get("results") or {}
    return results.get("aggregate_verdict") or run.get("verdict")


def _direction(verdict: Mapping[str, Any] | None, direction: str) -> Mapping[str, Any]:
    return next((d for d in (verdict or {}).get("directions", []) if d.get("direction") == direction), {})


def outcome(run: Mapping[str, Any]) -> str:
    """'read loses by 38.7%, write 192.0 MB/s (no target)' or the error's first words."""
    if run["status"] != "success":
        error = " ".join(str(run.get("error") or run["status"]).split())
        return error if len(error) <= ERROR_WIDTH else error[: ERROR_WIDTH - 3] + "..."
    verdict = headline_verdict(run)
    parts = []
    for d in (verdict or {}).get("directions", []):
        if d.get("beats_target") is None:
            parts.append(f"{d['direction']} no target figure" if d.get("smb_bytes_per_s") is not None
                         else f"{d['direction']} SMB not measured")
        else:
            parts.append(f"{d['direction']} {'BEATS' if d['beats_target'] else 'loses'} by "
                         f"{abs(d['margin_percent']):.1f}%")
    return ", ".join(parts) or "no verdict"


def run_row(run: Mapping[str, Any]) -> dict[str, Any]:
    """One run as one row: the same keys in the table, the CSV and the JSON."""
    results = run.get("results") or {}
    verdict = headline_verdict(run)
    necks = [d.get("bottleneck") or "-" for d in (verdict or {}).get("directions", [])]
    return {
        "id": run["id"],
        "started_utc": when(run["started"]),
        "kind": run["kind"],
        "status": run["status"],
        "system": results.get("system") or (run.get("inputs") or {}).get("system") or "-",
        "target": results.get("target") or (run.get("inputs") or {}).get("target") or "-",
        "clients": len(results.get("clients") or []),
        "smb_read_bytes_per_s": _direction(verdict, "read").get("smb_bytes_per_s"),
        "smb_write_bytes_per_s": _direction(verdict, "write").get("smb_bytes_per_s"),
        "result": outcome(run),
        "bottleneck": "/".join(dict.fromkeys(necks)) or "-",
    }


LIST_COLUMNS = (  # (row key, table head, how the table shows it)
    ("id", "RUN", str),
    ("started_utc", "STARTED (UTC)", str),
    ("kind", "KIND", str),
    ("status", "STATUS", str),
    ("system", "SYSTEM", str),
    ("clients", "CLIENTS", str),
    ("smb_read_bytes_per_s", "SMB READ", format_mb_s),
    ("smb_write_bytes_per_s", "SMB WRITE", format_mb_s),
    ("target", "TARGET", str),
    ("result", "RESULT", str),
    ("bottleneck", "BOTTLENECK", str),
)


def text_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [list(map(str, head))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return shown("\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells), lines=True)


def for_terminal(text: str) -> str:
    """``text`` as it may reach a terminal: every character a terminal acts on escaped (text.shown), line
    feeds and tabs kept, and CSV's CR LF line ends kept whole (a lone CR, which returns over a line, is
    escaped)."""
    return "\r\n".join(shown(line, lines=True) for line in text.split("\r\n"))


def csv_text(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: ("" if v is None else v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def list_table(rows: Sequence[Mapping[str, Any]]) -> str:
    return text_table([h for _, h, _ in LIST_COLUMNS], [[f(r[k]) for k, _, f in LIST_COLUMNS] for r in rows])


def figure(value: float | None, unit: str) -> str:
    """A metric's value in the unit people read: B/s as MB/s, bit/s as Gb/s, the rest as stored."""
    if value is None:
        return "-"
    if unit == "B/s":
        return format_mb_s(value)
    if unit == "bit/s":
        return f"{value / 1e9:.3f} Gb/s"
    return f"{value:g}" + (f" {unit}" if unit else "")


def change(percent: float | None) -> str:
    return "-" if percent is None else f"{percent:+.1f}%"


COMPARE_COLUMNS = ("section", "name", "a", "b", "unit", "change_percent", "bottleneck")


def compare_rows(comparison: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every ceiling of every verdict, then every figure, then every environment value that differs: one row
    each, both runs side by side (numbers in their stored units: bytes/s, bits/s, ...)."""
    rows = []
    for c in comparison.get("ceilings", []):
        neck = {(True, True): "both", (True, False): "a", (False, True): "b"}.get((c["bottleneck_a"], c["bottleneck_b"]), "")
        rows.append({"section": "ceiling" + (" (moved)" if c["moved"] else ""),
                     "name": f"{c['scope']} {c['direction']} {c['component']}", "a": c["a"], "b": c["b"],
                     "unit": "B/s", "change_percent": c["delta_percent"], "bottleneck": neck})
    for name, m in comparison.get("metrics", {}).items():
        rows.append({"section": "figure", "name": name, "a": m["a"], "b": m["b"], "unit": m["unit"],
                     "change_percent": m["delta_percent"], "bottleneck": ""})
    for name in comparison.get("only_in_a", []):
        rows.append({"section": "figure (only in a)", "name": name, "a": None, "b": None, "unit": "",
                     "change_percent": None, "bottleneck": ""})
    for name in comparison.get("only_in_b", []):
        rows.append({"section": "figure (only in b)", "name": name, "a": None, "b": None, "unit": "",
                     "change_percent": None, "bottleneck": ""})
    for name, pair in comparison.get("environment", {}).items():
        rows.append({"section": "environment", "name": name, "a": pair["a"], "b": pair["b"], "unit": "",
                     "change_percent": None, "bottleneck": ""})
    return rows


def compare_text(comparison: Mapping[str, Any]) -> str:
    a, b = comparison["a"], comparison["b"]
    out = [f"run {b['id']} ({when(b['started'])} UTC, {b['kind']}, {b['status']}) against "
           f"run {a['id']} ({when(a['started'])} UTC, {a['kind']}, {a['status']})", ""]
    if comparison.get("fix"):
        out += [*fix_link_lines(comparison["fix"]), ""]
    moved = comparison.get("moved") or []
    out += ["Ceilings that moved:" if moved else "No ceiling moved (5% or more) and no bottleneck changed."]
    out += [f"  {line}" for line in moved]
    rows = compare_rows(comparison)
    for section, title in (("ceiling", "Verdict chains (bottleneck: in which run it was the bottleneck)"),
                           ("figure", "Figures"), ("environment", "Environment that differs")):
        mine = [r for r in rows if r["section"].split(" (")[0] == section]
        if not mine:
            continue
        if section == "environment":
            body = [[r["name"], json.dumps(r["a"]), json.dumps(r["b"])] for r in mine]
            head = ["VALUE", f"RUN {a['id']}", f"RUN {b['id']}"]
        else:
            body = [[r["name"] + (" *" if "moved" in r["section"] else ""), figure(r["a"], r["unit"]),
                     figure(r["b"], r["unit"]), change(r["change_percent"])] + ([r["bottleneck"] or "-"]
                                                                                if section == "ceiling" else [])
                    for r in mine]
            head = ["NAME", f"RUN {a['id']}", f"RUN {b['id']}", "CHANGE"] + (["BOTTLENECK"] if section == "ceiling" else [])
        out += ["", title + (" (* moved)" if section == "ceiling" else "") + ":", text_table(head, body)]
    out += ["", "MB/s = 10^6 bytes/s, Gb/s = 10^9 bits/s; change = (b - a) / a."]
    return "\n".join(out)
