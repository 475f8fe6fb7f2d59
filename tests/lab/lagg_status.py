"""A LAGG comparison's status worked out again from its own figures, for the lab tests: how close a
measurement comes to the plan is the machine's load, so a test checks that the verdict judged the figures
it got, not that they reached the plan."""
from __future__ import annotations

from tengig.lagg.verify import DEFAULT_TOLERANCE_PERCENT


def status_by_figures(comparison: dict) -> str:
    """as-expected, above, low-end or below, as lagg/verify.py decides it at the default tolerance."""
    band = DEFAULT_TOLERANCE_PERCENT / 100
    measured, expected, low = comparison["measured_bps"], comparison["expected_bps"], comparison["low_bps"]
    if measured > expected * (1 + band):
        return "above"
    if measured >= expected * (1 - band):
        return "as-expected"
    return "low-end" if measured >= low * (1 - band) else "below"
