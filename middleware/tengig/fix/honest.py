"""Predicted against measured, per direction (pure): every applied fix records the SMB figure it predicted
beside the median of the copies after it, and whether that lies within PREDICTION_TOLERANCE of the prediction
(the issue's honest predictions: a rule that misses too often loses its number)."""
from __future__ import annotations

from collections.abc import Sequence

from ..verdict.advice import mb_s
from .models import DirectionGain, PredictionCheck, Prediction

PREDICTION_TOLERANCE = 0.15  # a measured figure within +-15% of the prediction bears it out


def check_predictions(predictions: Sequence[Prediction], gains: Sequence[DirectionGain]) -> list[PredictionCheck]:
    """Each predicted direction that was measured again: predicted, measured (the after-copies' median), how far
    off in percent of the prediction, and whether that is within the tolerance."""
    out = []
    for p in predictions:
        g = next((g for g in gains if g.direction == p.direction), None)
        if g is None or p.predicted_bytes_per_s <= 0:
            continue
        off = 100 * (g.after_median - p.predicted_bytes_per_s) / p.predicted_bytes_per_s
        within = abs(off) <= 100 * PREDICTION_TOLERANCE
        out.append(PredictionCheck(
            direction=p.direction, predicted_bytes_per_s=p.predicted_bytes_per_s, measured_bytes_per_s=g.after_median,
            off_percent=round(off, 1), within=within,
            text=(f"{p.direction}: predicted {mb_s(p.predicted_bytes_per_s)}, measured {mb_s(g.after_median)} "
                  f"({off:+.1f}%: {'within' if within else 'outside'} +-{100 * PREDICTION_TOLERANCE:.0f}% of the "
                  "prediction)")))
    return out
