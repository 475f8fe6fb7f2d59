"""Did the fix gain, judged against the run's own spread (pure)? The SMB copies before (the run's) and after
(the re-measure, same desktop, same file size) of one direction: a gain is real when every copy after beat
every copy before and the medians moved more than runs that agree differ (bench/stats.CV_UNSTABLE_PERCENT);
a loss likewise the other way; anything else lies within the spread. How sure: the chance that two sets of
copies of one unchanged NAS separate that cleanly by luck alone, 1 / C(n + m, n) (every ordering of the
n + m copies equally likely), said beside the decision."""
from __future__ import annotations

import math
from collections.abc import Sequence

from ..bench.stats import CV_UNSTABLE_PERCENT, summarize
from ..verdict.advice import mb_s
from ..verdict.models import Direction
from .models import DirectionGain

MIN_MOVE_PERCENT = CV_UNSTABLE_PERCENT  # medians closer than runs that agree are no move


def _span(values: Sequence[float]) -> str:
    lo, hi = min(values), max(values)
    return mb_s(lo) if lo == hi else f"{mb_s(lo).removesuffix(' MB/s')}-{mb_s(hi)}"


def judge_gain(direction: Direction, before: Sequence[float], after: Sequence[float]) -> DirectionGain:
    """One direction's before and after copies (bytes/s each), judged."""
    if not before or not after:
        raise ValueError("a gain needs copies before and after")
    b, a = summarize(before).median, summarize(after).median
    move = 100 * (a - b) / b
    chance = 100 / math.comb(len(before) + len(after), len(before))
    if min(after) > max(before) and move > MIN_MOVE_PERCENT:
        verdict, said = "gain", "every copy after beat every copy before"
    elif max(after) < min(before) and -move > MIN_MOVE_PERCENT:
        verdict, said = "loss", "every copy after was slower than every copy before"
    else:
        verdict, said = "within-spread", "within the copies' own spread"
    sure = (f"; by luck alone {chance:.0f}% of the time" if verdict != "within-spread" else "")
    text = (f"SMB {direction} {mb_s(b)} -> {mb_s(a)} ({move:+.1f}%): {said} (before {_span(before)} over "
            f"{len(before)} copies, after {_span(after)} over {len(after)}{sure})")
    return DirectionGain(direction=direction, before=list(before), after=list(after), before_median=b,
                         after_median=a, gain_percent=move, verdict=verdict, chance_percent=chance, text=text)


# Fixes that mend a fault rather than tune a setting: kept unless they cost throughput. An MTU larger at the NAS
# than on the path drops every full frame that needs fragmenting (a black hole TCP's MSS only hides), so the
# mismatch goes even where TCP's adjustment left nothing to gain.
FAULT_FIXES = frozenset({"mtu"})


def keep(gains: Sequence[DirectionGain], fix: str = "") -> tuple[bool, str]:
    """Keep the change when some direction gained for real and none lost for real (a fault's fix, FAULT_FIXES:
    when none lost); the reason in words."""
    if not gains:
        return False, "nothing was measured after the change to judge it by"
    lost = [g for g in gains if g.verdict == "loss"]
    won = [g for g in gains if g.verdict == "gain"]
    said = "; ".join(g.text for g in gains)
    if lost:
        return False, f"it cost throughput: {said}"
    if not won and fix in FAULT_FIXES:
        return True, (f"it mends a fault (the path's MTU at both ends) and cost nothing beyond the run's own spread: "
                      f"{said}")
    if not won:
        return False, f"no gain beyond the run's own spread: {said}"
    return True, f"a real gain: {said}"
