"""A progress bar on stderr for long jobs: percent, bar, and what is happening now (a server's words,
shown escaped)."""
from __future__ import annotations

import signal
import sys
import threading
import time

from ..text import shown


class ProgressBar:
    def __init__(self, label: str, *, stream=None, width: int = 28):
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.last = ""

    def __call__(self, percent: float, description: str = "") -> None:
        percent = max(0.0, min(100.0, float(percent)))
        filled = int(self.width * percent / 100)
        bar = "#" * filled + "-" * (self.width - filled)
        line = f"{self.label} [{bar}] {percent:5.1f}% {shown(description)}"
        if self.tty:
            self.stream.write("\r\033[K" + line)
        elif line != self.last:
            self.stream.write(line + "\n")  # logs and CI: one line per step
        self.last = line
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write(f"  ({time.monotonic() - self.started:.1f} s)\n")
            self.stream.flush()


def with_ctrl_c(label: str, work):
    """Run work(bar, cancel) with a progress bar; Ctrl-C sets the cancel token (the tool is stopped, undo runs)."""
    cancel = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    bar = ProgressBar(label)
    try:
        return work(bar, cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
        bar.done()
