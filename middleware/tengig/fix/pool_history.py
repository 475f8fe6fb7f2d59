"""The pool's figure a fix's prediction stands on (pure): the median of this pool's last POOL_RUNS measurements
on this NAS, the run's own among them.

One fio run on a busy NAS can dip (on the lab, a pool held to 400 MB/s read 324 MB/s once, and the SMB copies
after the fix then beat the prediction by 19.5%); the copies after a fix meet the pool as it usually is, not as
it was in that one run's fio. The verdict itself keeps the run's own figure: only the prediction is steadied.
A pool measured only once on this NAS keeps its own figure."""
from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..results.models import RunRecord
from ..verdict.advice import mb_s
from ..verdict.models import Ceiling, DirectionVerdict
from .run_view import RunView, host_of

POOL_RUNS = 5  # the run's own figure and up to four before it


def _pool_name(run: RunRecord) -> str | None:
    return ((run.results or {}).get("pool") or {}).get("pool")


def _pool_ceilings(run: RunRecord) -> list[dict[str, Any]]:
    """Every desktop's measured pool ceilings in the run's stored verdicts, as stored (dicts: an older run's
    verdict need not validate against today's models)."""
    found = []
    for client in (run.results or {}).get("clients") or []:
        for direction in ((client or {}).get("verdict") or {}).get("directions") or []:
            found += [c for c in direction.get("ceilings") or []
                      if c.get("component") == "pool" and c.get("provenance") == "measured"]
    return found


def earlier_figures(run: RunRecord, earlier: Iterable[RunRecord]) -> dict[tuple[str, str], list[float]]:
    """(direction, label) -> this pool's figures in the runs before ``run`` on the same NAS (same host name, same
    pool), newest first, at most POOL_RUNS - 1 each. ``earlier``: stored runs, newest first."""
    out: dict[tuple[str, str], list[float]] = {}
    for other in earlier:
        if (other.id == run.id or other.status != "success" or other.started > run.started
                or host_of(other) != host_of(run) or _pool_name(other) != _pool_name(run)):
            continue
        seen: set[tuple[str, str]] = set()
        for c in _pool_ceilings(other):
            key = (c.get("direction"), c.get("label"))
            figures = out.setdefault(key, [])
            if key not in seen and len(figures) < POOL_RUNS - 1 and c.get("bytes_per_s"):
                figures.append(float(c["bytes_per_s"]))
                seen.add(key)
    return out


def steady(ceiling: Ceiling, before: Sequence[float]) -> Ceiling:
    """``ceiling`` (a measured pool's) as the median of its own figure and ``before``; itself when there is none."""
    if ceiling.component != "pool" or ceiling.provenance != "measured" or not before:
        return ceiling
    figures = [ceiling.bytes_per_s, *before]
    listed = ", ".join(mb_s(f) for f in figures)
    return ceiling.model_copy(update={
        "bytes_per_s": statistics.median(figures), "runs": figures,
        "label": f"{ceiling.label}, the median of its last {len(figures)} runs on this NAS ({listed}; this "
                 "run's first)"})


def with_pool_history(view: RunView, earlier: Iterable[RunRecord]) -> RunView:
    """``view`` whose desktops' verdicts carry the steadied pool ceiling (for the fix's prediction only)."""
    figures = earlier_figures(view.run, earlier)
    if not any(figures.values()):
        return view

    def direction(d: DirectionVerdict) -> DirectionVerdict:
        return d.model_copy(update={"ceilings": [steady(c, figures.get((c.direction, c.label), []))
                                                 for c in d.ceilings]})

    clients = [replace(c, verdict=c.verdict.model_copy(update={"directions": [direction(d)
                                                                              for d in c.verdict.directions]}))
               for c in view.clients]
    return replace(view, clients=clients)
