"""Which pool member stands out from the others (pure): the scaling phase names it and the advice rule
pool-member-dragging speaks of it, from the same rule, so the two never disagree."""
from __future__ import annotations

import statistics

from pydantic import BaseModel

# A member stands out when its figure is at least this many times the others' median ...
STANDOUT_RATIO = 2.0
# ... and above these floors: a few ms of wait and a half-busy disk are ordinary.
WAIT_FLOOR_MS = 5.0
BUSY_FLOOR_PERCENT = 50.0


class Standout(BaseModel):
    name: str
    value: float
    others: float  # the other members' median


def standout(values: dict[str, float], floor: float) -> Standout | None:
    """The one member whose value is STANDOUT_RATIO x the others' median and above ``floor``; None with
    fewer than two members known, or none standing out."""
    if len(values) < 2:
        return None
    name = max(values, key=lambda k: values[k])
    others = statistics.median(v for k, v in values.items() if k != name)
    value = values[name]
    if value < floor or value < STANDOUT_RATIO * others:
        return None
    return Standout(name=name, value=value, others=others)


def dragging_text(waits: dict[str, float], busy: dict[str, float]) -> str | None:
    """'loop1: 12.3 ms average wait, the others 0.6 ms' (or its busy share), or None."""
    if (found := standout(waits, WAIT_FLOOR_MS)) is not None:
        return f"{found.name}: {found.value:.1f} ms average wait, the others {found.others:.1f} ms"
    if (found := standout(busy, BUSY_FLOOR_PERCENT)) is not None:
        return f"{found.name}: busy {found.value:.0f}% of the time, the others {found.others:.0f}%"
    return None
