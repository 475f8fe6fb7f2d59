"""How long `tengig client join` waits on the NAS, and how often it asks it.

The desktop asks `next` and the NAS holds the question up to NEXT_WAIT_S when it has nothing to ask, then
answers null (ask again). A NAS that answers no call for NAS_SILENCE_S ends the desktop's part
(--nas-silence, $TENGIG_NAS_SILENCE_S); the NAS's wait is kept well inside that limit. A null that came at
once (the NAS did not wait) is not asked again at once: the pause doubles with each in a row, from
NULL_PAUSE_S up to NULL_PAUSE_MAX_S, and a real instruction or a null after a wait starts over."""
from __future__ import annotations

from ..errors import ValidationError

NAS_SILENCE_S = 30.0
SILENCE_RANGE_S = (1.0, 3600.0)
NEXT_WAIT_S = 10.0
NULL_PAUSE_S = 0.1
NULL_PAUSE_MAX_S = 5.0


def checked_silence(seconds: float) -> float:
    lo, hi = SILENCE_RANGE_S
    if not lo <= seconds <= hi:
        raise ValidationError.one("--nas-silence", f"{seconds:g} is not a number of seconds from {lo:g} to {hi:g}")
    return seconds


def next_wait(silence: float) -> float:
    """How long the NAS may hold `next`: NEXT_WAIT_S, or a third of a shorter silence limit."""
    return min(NEXT_WAIT_S, silence / 3)


def null_pause(in_a_row: int) -> float:
    """The pause before asking again after ``in_a_row`` nulls that came at once."""
    return min(NULL_PAUSE_MAX_S, NULL_PAUSE_S * 2 ** min(in_a_row - 1, 32))


class EarlyNulls:
    """Counts the nulls in a row that came sooner than half the wait asked of the NAS."""

    def __init__(self, wait: float):
        self.wait = wait
        self.in_a_row = 0

    def pause_after(self, answered_in: float) -> float:
        """The pause before asking again, after a null that came ``answered_in`` seconds after the question."""
        self.in_a_row = self.in_a_row + 1 if answered_in < self.wait / 2 else 0
        return null_pause(self.in_a_row) if self.in_a_row else 0.0

    def reset(self) -> None:
        self.in_a_row = 0
