"""Repeat statistics (pure): median and coefficient of variation, as docs/physics.md §7 asks."""
from __future__ import annotations

import statistics
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

CV_UNSTABLE_PERCENT = 3.0
MIN_RUNS = 2  # a repeated test stops early only once this many runs agree


class Repeated(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    values: list[float] = Field(description="Every repeat, in the order measured.")
    median: float
    cv_percent: float | None = Field(description="Sample stdev / mean x 100; None with one value.")
    stable: bool = Field(description=f"CV <= {CV_UNSTABLE_PERCENT}% (or a single value).")
    planned: int | None = Field(None, description="Runs asked for: fewer ran when the first ones were enough "
                                "(see stopped_because).")
    stopped_because: str | None = Field(None, description="Why fewer runs than planned were enough: they agreed "
                                        f"within {CV_UNSTABLE_PERCENT}%, or no run left could move the median "
                                        "across a figure the verdict compares it with.")

    @property
    def stopped_early(self) -> bool:
        return self.planned is not None and len(self.values) < self.planned


# (what it is, value): a figure the verdict compares a measurement with, e.g. ("the target's 223.4 MB/s", 223.4e6)
Threshold = tuple[str, float]


def median_bounds(values: Sequence[float], planned: int) -> tuple[float, float] | None:
    """Where the median of all ``planned`` runs can still land, whatever the runs not yet made measure; None
    while it is unbounded. The k-th smallest of the final runs lies between the current (k - left)-th and
    k-th smallest, because at most ``left`` new runs fall below (or above) any current one."""
    xs, left = sorted(values), planned - len(values)
    low_i, high_i = (planned - 1) // 2, planned // 2  # the median's positions among all planned runs
    if left < 0 or low_i - left < 0 or high_i >= len(xs):
        return None
    return xs[low_i - left], xs[high_i]


def settled(values: Sequence[float], planned: int, against: Sequence[Threshold] | None = None) -> str | None:
    """Why repeating can stop now, or None to run again: at least MIN_RUNS runs, fewer than planned, and either
    their spread within CV_UNSTABLE_PERCENT, or (``against`` given) no run left could move the median across
    any of those figures, so more runs cannot change the verdict. ``against`` empty: the verdict uses none."""
    if not MIN_RUNS <= len(values) < planned:
        return None
    if summarize(values).stable:
        return f"they agreed within {CV_UNSTABLE_PERCENT:g}%, more would not move the median"
    if against is None:
        return None
    if not against:
        return "the verdict does not use this test"
    bounds = median_bounds(values, planned)
    if bounds is None or any(bounds[0] <= value <= bounds[1] for _, value in against):
        return None
    return "no run left could move the median across " + ", ".join(text for text, _ in against)


def summarize(values: Sequence[float], planned: int | None = None, stopped_because: str | None = None) -> Repeated:
    if not values:
        raise ValueError("no values to summarize: a measurement that did not run has no median")
    vals = [float(v) for v in values]
    cv = None
    if len(vals) > 1:
        mean = statistics.fmean(vals)
        cv = 100 * statistics.stdev(vals) / mean if mean else None
    return Repeated(values=vals, median=statistics.median(vals), cv_percent=cv,
                    stable=cv is None or cv <= CV_UNSTABLE_PERCENT, planned=planned,
                    stopped_because=stopped_because if planned is not None and len(vals) < planned else None)
