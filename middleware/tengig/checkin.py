"""A change that stays only if someone confirms it in time: TrueNAS's checkin, for any apply.

TrueNAS commits a network change with a rollback timer and keeps it only when `interface.checkin`
arrives from a session that still works. tengig offers the same to a person: the apply job, once its
own probe passed, waits on a CheckinGate; the panel (or `midclt call tengig.mesh.checkin`) confirms
through the network that was just changed. No confirmation before the time is up, or an abort, and
the apply takes the change back.

    gate = CheckinGate()
    ok = gate.wait(60, cancel=cancel, tick=lambda left: print(f"{left:.0f} s to confirm"))
    # elsewhere, from the user's session:
    gate.confirm()
"""
from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable

from .errors import TengigError

TICK_S = 1.0
# Seconds a network change waits for its confirmation before it is taken back: the default of every
# apply's checkin_timeout option (tengig.mesh.apply, tengig.lagg.apply, their models name it) and of
# TrueNAS's own interface.commit. Written here once, below every layer that needs it.
CHECKIN_TIMEOUT_S = 60


class NotConfirmed(TengigError):
    """Nobody confirmed the change in time; it was taken back."""

    errno = errno.ETIMEDOUT


class CheckinGate:
    def __init__(self) -> None:
        self._confirmed = threading.Event()
        self._lock = threading.Lock()
        self._deadline: float | None = None  # monotonic; set while waiting

    @property
    def seconds_left(self) -> float | None:
        """Seconds until the wait gives up, or None when nothing waits."""
        with self._lock:
            return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def wait(self, seconds: float, *, cancel: threading.Event | None = None,
             tick: Callable[[float], None] | None = None) -> bool:
        """Block until confirmed (True), or until `seconds` pass or `cancel` is set (False). `tick(left)`
        is told about once a second, for a countdown."""
        with self._lock:
            self._confirmed.clear()
            self._deadline = time.monotonic() + seconds
        try:
            while True:
                left = self.seconds_left or 0.0
                if tick is not None:
                    tick(left)
                if self._confirmed.wait(min(TICK_S, left)):
                    return True
                if (cancel is not None and cancel.is_set()) or self.seconds_left == 0.0:
                    return self._confirmed.is_set()
        finally:
            with self._lock:
                self._deadline = None

    def confirm(self) -> bool:
        """Confirm the change being waited on; False when nothing is waiting (too late, or never asked)."""
        with self._lock:
            if self._deadline is None or time.monotonic() >= self._deadline:
                return False
            self._confirmed.set()
            return True
