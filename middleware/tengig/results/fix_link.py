"""Two runs a fix links (pure over the fixes table's rows): that run b measured SMB again after a fix made from
run a's verdict (or the other way round), which fix, predicted against measured, and whether it was kept or put
back."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def fix_link(rows: Iterable[Mapping[str, Any]], a: int, b: int) -> dict[str, Any] | None:
    """The newest fix linking runs ``a`` and ``b`` (either way round), as tengig.results.compare shows it."""
    for row in rows:
        if {row.get("run_id"), row.get("after_run_id")} != {a, b}:
            continue
        data = row.get("data") or {}
        fix, setting = data.get("fix") or {}, (data.get("fix") or {}).get("setting") or {}
        return {
            "fix_id": row["id"], "name": row.get("name"), "state": row.get("state"),
            "before_run_id": row["run_id"], "after_run_id": row["after_run_id"],
            "setting": f"{setting.get('key')} of {setting.get('object')}",
            "from_value": data.get("previous") if data.get("previous") is not None else fix.get("from_value"),
            "to_value": fix.get("to_value"),
            "predictions": list(data.get("predictions") or []),
            "gains": [g.get("text", "") for g in data.get("gains") or []],
            "why": data.get("why") or "",
        }
    return None


def fix_link_lines(link: Mapping[str, Any]) -> list[str]:
    """The pair in words, for `tengig results compare`."""
    state = {"kept": "kept", "rolled-back": "put back", "undone": "kept, since undone"}.get(link["state"],
                                                                                           link["state"])
    lines = [f"Run {link['after_run_id']} measured SMB again after fix {link['fix_id']} ({link['name']}) of run "
             f"{link['before_run_id']}: {link['setting']} {link['from_value']} -> {link['to_value']}, {state}"]
    for p in link["predictions"]:
        off = p.get("off_percent")
        lines.append(f"  {p['direction']}: {p['measured_bytes_per_s'] / 1e6:.1f} MB/s before, predicted "
                     f"{p['predicted_bytes_per_s'] / 1e6:.1f} MB/s ({p.get('bound')}), measured "
                     f"{p['measured_after_bytes_per_s'] / 1e6:.1f} MB/s ({off:+.1f}% off the prediction)")
    lines += [f"  {g}" for g in link["gains"]]
    return lines
