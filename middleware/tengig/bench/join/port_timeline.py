"""When a copy's bytes crossed the NAS's port, on the NAS's own clock: its byte counter sampled every
few milliseconds while a desktop copies (bench/join/joined.py), so that the NAS knows how long the copy took
at least, whatever the desktop says.

Of the bytes the port carried in the copy's window, those between LOW and HIGH of the total (the copy's
middle: the window's other traffic, a few KiB of the API's messages, sits at its edges) went past after
the last sample below LOW had been taken and before the first sample at HIGH or more: between the first
sample at LOW or more and the last one below HIGH, the port was still carrying them. That span is a
lower bound of the time the copy took (``busy_seconds``); sampling late only makes it shorter."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

INTERVAL_S = 0.005
LOW, HIGH = 0.01, 0.99
MAX_SAMPLES = 200_000  # about 17 minutes at INTERVAL_S; later samples are thinned out


@dataclass(frozen=True)
class Sample:
    at: float  # time.monotonic()
    rx: int
    tx: int


class PortTimeline:
    """Samples ``read`` (a port's (rx, tx) bytes) in a thread of its own from start to ``stop()``."""

    def __init__(self, read: Callable[[], tuple[int, int]], interval: float = INTERVAL_S):
        self._read, self._interval = read, interval
        self._samples: list[Sample] = []
        self._stop = threading.Event()
        self.error: str | None = None
        self._take()
        self._thread = threading.Thread(target=self._run, name="tengig-port-timeline", daemon=True)
        self._thread.start()

    def _take(self) -> None:
        rx, tx = self._read()
        self._samples.append(Sample(time.monotonic(), rx, tx))
        if len(self._samples) > MAX_SAMPLES:
            self._samples = self._samples[::2]

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self._take()
            except (OSError, LookupError, ValueError) as exc:  # the port went away mid-copy
                self.error = f"{type(exc).__name__}: {exc}"
                return

    def stop(self) -> list[Sample]:
        self._stop.set()
        self._thread.join(timeout=5)
        if self.error is None:
            self._take()
        return list(self._samples)


def busy_seconds(samples: list[Sample], direction: str) -> float | None:
    """The least time the port took to carry the middle of what it carried (read: what the NAS sent;
    write: what it received) between the first and last sample, or None if the samples cannot tell
    (too few, or the copy's middle fell between two samples)."""
    if len(samples) < 3:
        return None
    count = [(s.tx - samples[0].tx) if direction == "read" else (s.rx - samples[0].rx) for s in samples]
    total = count[-1]
    if total <= 0:
        return None
    first_low = next(i for i, c in enumerate(count) if c >= LOW * total)
    last_below_high = max(i for i, c in enumerate(count) if c < HIGH * total)
    span = samples[last_below_high].at - samples[first_low].at
    return span if span > 0 else None


def carrying_seconds(samples: list[Sample], direction: str) -> float | None:
    """The most time the port can have taken to carry the middle of what it carried: from the last sample below
    LOW to the first at HIGH or more (None if the samples cannot tell). What lies outside it, the NAS saw no
    copying in: a desktop's tool starting and logging on, its answer's way back."""
    if len(samples) < 2:
        return None
    count = [(s.tx - samples[0].tx) if direction == "read" else (s.rx - samples[0].rx) for s in samples]
    total = count[-1]
    if total <= 0:
        return None
    last_low = max(i for i, c in enumerate(count) if c < LOW * total)
    first_high = next(i for i, c in enumerate(count) if c >= HIGH * total)
    span = samples[first_high].at - samples[last_low].at
    return span if span > 0 else None
