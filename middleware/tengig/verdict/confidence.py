"""How sure the verdict is (pure). A claim rests on figures measured several times; when the spread of
those runs reaches the figure it is compared with, the claim is a close call, and the verdict says so
in words rather than naming one side as if it were certain:

- the bottleneck: another of pool, link and network whose runs overlap the bottleneck's;
- SMB's own limit: SMB's runs reach SMB_FAR_BELOW_RATIO of the lowest of the others;
- beats or loses: SMB's runs straddle the target;
- a ceiling SMB passed more than through it in every run: it was not measured as SMB used it (overrun.py).

Estimated ceilings (the link's physics) are one exact figure; a measurement made once has no spread,
so with one run each the noise is unknown, and the summary says that too."""
from __future__ import annotations

from collections.abc import Sequence

from .advice import (
    SMB_FAR_BELOW_RATIO, best, ceiling_text, chain_bound, mb_s, measured_smb, overruns, target_value,
)
from .models import Ceiling, Component, Direction, DirectionVerdict, Target
from .overrun import overrun_calls

CHAIN: tuple[Component, ...] = ("pool", "link", "network")


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def _runs_text(c: Ceiling) -> str:
    lo, hi = c.spread
    if len(c.runs) > 1:
        return f"{mb_s(lo).removesuffix(' MB/s')}-{mb_s(hi)} over {len(c.runs)} runs"
    return ceiling_text(c)


def close_calls(target: Target, direction: Direction, ceilings: Sequence[Ceiling],
                bottleneck: Component | None) -> list[str]:
    """The claims of one direction that its runs cannot settle, each in words with its numbers."""
    out = overrun_calls(list(ceilings), direction)
    smb = measured_smb(ceilings)
    neck = best(ceilings, bottleneck) if bottleneck in CHAIN else None
    if neck is not None:
        for comp in CHAIN:
            other = best(ceilings, comp)
            # a network close to the link is the link at work (judge.NETWORK_AT_LINK_RATIO), not a rival; a
            # ceiling SMB overran is no bound at all (said above)
            if (comp == bottleneck or other is None or {comp, bottleneck} == {"link", "network"}
                    or overruns(smb, other)):
                continue
            if _overlap(neck.spread, other.spread):
                out.append(f"the bottleneck is the {bottleneck} or the {comp}: their runs overlap ({bottleneck} "
                           f"{_runs_text(neck)}, {comp} {_runs_text(other)})")
    bound = chain_bound(ceilings)
    if smb is not None and bound is not None:
        line = SMB_FAR_BELOW_RATIO * bound.bytes_per_s
        lo, hi = smb.spread
        if lo <= line <= hi and lo < hi:
            out.append(f"SMB itself or the {bound.component}: SMB's runs ({_runs_text(smb)}) reach "
                       f"{SMB_FAR_BELOW_RATIO:.0%} of the {bound.component}'s {mb_s(bound.bytes_per_s)}")
    want = target_value(target, direction)
    if smb is not None and want is not None:
        lo, hi = smb.spread
        if lo <= want <= hi and lo < hi:
            out.append(f"beats or loses to the target: SMB's runs ({_runs_text(smb)}) straddle its {mb_s(want)}")
    return out


def how_sure(directions: Sequence[DirectionVerdict]) -> str:
    """The summary's sentence on how sure the verdict is."""
    calls = [f"{d.direction}: {c}" for d in directions for c in d.close_calls]
    if calls:
        return "Not sure: " + "; ".join(calls) + "."
    if not any(len(c.runs) > 1 for d in directions for c in d.ceilings):
        return "How sure: each figure was measured once, so its run-to-run noise is unknown."
    return "Sure: every claim holds in every run."
