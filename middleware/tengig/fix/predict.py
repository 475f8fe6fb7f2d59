"""What SMB should reach once a fix's bound is gone (pure): the lowest of the ceilings the fix leaves alone,
from the verdict's own chain. SMB itself never costs nothing, so this is the most the fix can give: a fix that
lifts SMB to it has done all the run's other figures allow."""
from __future__ import annotations

from collections.abc import Sequence

from ..verdict.advice import best, ceiling_text, chain_bound, mb_s, measured_smb
from ..verdict.models import Ceiling, Direction, DirectionVerdict
from ..verdict.thresholds import link_ceiling
from .models import Prediction


def _prediction(direction: Direction, smb: Ceiling, bound: Ceiling, gone: str) -> Prediction | None:
    if bound.bytes_per_s <= smb.bytes_per_s:
        return None  # the ceilings left allow no more than SMB measured: nothing to predict a gain from
    return Prediction(
        direction=direction, measured_bytes_per_s=smb.bytes_per_s, predicted_bytes_per_s=bound.bytes_per_s,
        bound=bound.component, bound_label=bound.label,
        why=(f"SMB {direction} {mb_s(smb.bytes_per_s)} now; with {gone} gone, the lowest ceiling left is the "
             f"{bound.component}, {bound.label}: {ceiling_text(bound)}, so SMB {direction} up to "
             f"{mb_s(bound.bytes_per_s)} ({bound.bytes_per_s / smb.bytes_per_s:.2g}x)"))


def chain_predictions(directions: Sequence[DirectionVerdict], which: Sequence[Direction],
                      gone: str) -> list[Prediction]:
    """For a cost inside SMB (encryption, signing, one channel, a costly dataset property): the lowest of pool,
    link and network, per direction in ``which``."""
    out = []
    for dv in directions:
        smb, bound = measured_smb(dv.ceilings), chain_bound(dv.ceilings)
        if dv.direction in which and smb is not None and bound is not None:
            if (p := _prediction(dv.direction, smb, bound, gone)) is not None:
                out.append(p)
    return out


def mtu_predictions(directions: Sequence[DirectionVerdict], line_rate_bps: int | None, mtu: int,
                    gone: str) -> list[Prediction]:
    """For an MTU mismatch: the network measured across it is the bound that goes; what is left is the pool and
    the link's physics at the MTU both ends then share."""
    out = []
    for dv in directions:
        smb = measured_smb(dv.ceilings)
        left = [c for c in (best(dv.ceilings, "pool"),) if c is not None]
        if line_rate_bps:
            left.append(link_ceiling(line_rate_bps, mtu, dv.direction))
        if smb is not None and left:
            if (p := _prediction(dv.direction, smb, min(left, key=lambda c: c.bytes_per_s), gone)) is not None:
                out.append(p)
    return out
