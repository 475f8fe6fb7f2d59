"""Repeat statistics (pure): median and coefficient of variation, as docs/physics.md §7 asks."""
from __future__ import annotations

import statistics
from collections.abc import Sequence

from pydantic import BaseModel, Field

CV_UNSTABLE_PERCENT = 3.0
MIN_RUNS = 2  # a repeated test stops early only once this many runs agree


class Repeated(BaseModel):
    values: list[float] = Field(description="Every repeat, in the order measured.")
    median: float
    cv_percent: float | None = Field(description="Sample stdev / mean x 100; None with one value.")
    stable: bool = Field(description=f"CV <= {CV_UNSTABLE_PERCENT}% (or a single value).")
    planned: int | None = Field(None, description="Runs asked for: fewer ran when the first ones already agreed "
                                f"within {CV_UNSTABLE_PERCENT}% (more would not move the median the verdict uses).")

    @property
    def stopped_early(self) -> bool:
        return self.planned is not None and len(self.values) < self.planned


def settled(values: Sequence[float], planned: int) -> bool:
    """Stop repeating: at least MIN_RUNS runs, fewer than planned, and their spread within CV_UNSTABLE_PERCENT."""
    return MIN_RUNS <= len(values) < planned and summarize(values).stable


def summarize(values: Sequence[float], planned: int | None = None) -> Repeated:
    if not values:
        raise ValueError("no values to summarize: a measurement that did not run has no median")
    vals = [float(v) for v in values]
    cv = None
    if len(vals) > 1:
        mean = statistics.fmean(vals)
        cv = 100 * statistics.stdev(vals) / mean if mean else None
    return Repeated(values=vals, median=statistics.median(vals), cv_percent=cv,
                    stable=cv is None or cv <= CV_UNSTABLE_PERCENT, planned=planned)
