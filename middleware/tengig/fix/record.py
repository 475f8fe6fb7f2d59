"""Predicted against measured, per applied fix, and what a rule's record says of its next prediction (pure over
the fixes table's rows): a rule whose measured SMB after the fix fell outside PREDICTION_TOLERANCE_PERCENT of its
prediction in more than MISSES_ALLOWED of its last RECORD_RUNS applied fixes loses its number ("gain unknown");
the fix itself stays."""
from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from ..verdict.advice import mb_s
from .models import DirectionGain, Fix, FixPlan, PredictionCheck

PREDICTION_TOLERANCE_PERCENT = 15.0
RECORD_RUNS = 10
MISSES_ALLOWED = 1


def checks(fix: Fix, gains: Sequence[DirectionGain]) -> list[PredictionCheck]:
    """Each predicted direction against the re-measure's median of it."""
    out = []
    for p in fix.predictions:
        g = next((g for g in gains if g.direction == p.direction), None)
        if g is None:
            continue
        off = 100 * (g.after_median - p.predicted_bytes_per_s) / p.predicted_bytes_per_s
        out.append(PredictionCheck(
            direction=p.direction, measured_bytes_per_s=p.measured_bytes_per_s,
            predicted_bytes_per_s=p.predicted_bytes_per_s, bound_bytes_per_s=p.bound_bytes_per_s or
            p.predicted_bytes_per_s, measured_after_bytes_per_s=g.after_median, bound=p.bound,
            off_percent=off, within=abs(off) <= PREDICTION_TOLERANCE_PERCENT))
    return out


def track_record(rows: Iterable[dict[str, Any]], name: str) -> tuple[int, int]:
    """(misses, applied) over fix ``name``'s last RECORD_RUNS applied fixes that were measured (rows newest
    first, as ResultStore.fixes gives them): a miss is a fix with a direction outside the tolerance."""
    applied = misses = 0
    for row in rows:
        found = (row.get("data") or {}).get("predictions")
        if row.get("name") != name or not found:
            continue
        applied += 1
        misses += any(not c.get("within") for c in found)
        if applied == RECORD_RUNS:
            break
    return misses, applied


def gain_unknown(rows: Iterable[dict[str, Any]], name: str) -> str | None:
    """Why fix ``name``'s number is not given, or None while its record holds."""
    misses, applied = track_record(rows, name)
    if misses <= MISSES_ALLOWED:
        return None
    return (f"gain unknown: {name}'s prediction missed the measured SMB by more than "
            f"{PREDICTION_TOLERANCE_PERCENT:.0f}% in {misses} of its last {applied} applied fixes")


def check_text(found: Sequence[PredictionCheck]) -> str:
    """'read predicted 390.2, measured 377.0 MB/s (-3.4%, within 15%)'."""
    return "; ".join(f"{c.direction} predicted {mb_s(c.predicted_bytes_per_s)}, measured "
                     f"{mb_s(c.measured_after_bytes_per_s)} ({c.off_percent:+.1f}%, "
                     f"{'within' if c.within else 'outside'} {PREDICTION_TOLERANCE_PERCENT:.0f}%)" for c in found)


def smb_share(rows: Iterable[dict[str, Any]], name: str, direction: str) -> tuple[float, int] | None:
    """SMB's own share of the lowest ceiling left once a fix's bound was gone, in ``direction``, as this NAS's
    last RECORD_RUNS kept fixes measured it (measured after / that ceiling, the median; fix ``name``'s own record
    when it has one, else every fix's), and how many measurements that is; None: none kept yet. Reads and
    writes apart (a write's copy ends in the NAS's RAM, a read's comes from the disks). At most 1."""
    rows = list(rows)

    def ratios(of: str | None) -> list[float]:
        found: list[float] = []
        for row in rows:
            if row.get("state") not in ("kept", "undone") or (of is not None and row.get("name") != of):
                continue
            found += [c["measured_after_bytes_per_s"] / c["bound_bytes_per_s"]
                      for c in (row.get("data") or {}).get("predictions") or []
                      if c.get("direction") == direction and c.get("bound_bytes_per_s")]
            if len(found) >= RECORD_RUNS:
                break
        return found[:RECORD_RUNS]

    found = ratios(name) or ratios(None)
    if not found:
        return None
    return min(1.0, statistics.median(found)), len(found)


def with_share(fix: Fix, rows: Sequence[dict[str, Any]]) -> Fix:
    """``fix`` with each prediction scaled by SMB's share of its bound on this NAS in its direction (smb_share)."""
    predictions = []
    for p in fix.predictions:
        share = smb_share(rows, fix.name, p.direction)
        if share is None:
            predictions.append(p)
            continue
        ratio, n = share
        bound = p.bound_bytes_per_s or p.predicted_bytes_per_s
        predicted = max(p.measured_bytes_per_s, bound * ratio)
        predictions.append(p.model_copy(update={
            "bound_bytes_per_s": bound, "smb_share": ratio, "predicted_bytes_per_s": predicted,
            "why": f"{p.why}; SMB {p.direction} reached {ratio:.0%} of the ceiling left in this NAS's last {n} kept "
                   f"fix measurement(s), so {mb_s(predicted)}"}))
    if predictions == fix.predictions:
        return fix
    text = fix.text.split(" Predicted: ")[0]
    return fix.model_copy(update={"predictions": predictions,
                                  "text": f"{text} Predicted: {'; '.join(p.why for p in predictions)}"})


def with_record(plan: FixPlan, rows: Sequence[dict[str, Any]]) -> FixPlan:
    """``plan`` with each fix's prediction scaled by SMB's share on this NAS (smb_share), and each fix whose
    record lost its number marked "gain unknown" (its text says so in place of the predicted figure)."""
    fixes = []
    for fix in plan.fixes:
        fix = with_share(fix, rows)
        why = gain_unknown(rows, fix.name)
        if why is not None:
            head = fix.text.split(" Predicted: ")[0]
            fix = fix.model_copy(update={"gain_unknown": why, "text": f"{head} {why[0].upper()}{why[1:]}."})
        fixes.append(fix)
    return plan.model_copy(update={"fixes": fixes})
