"""`tengig client join` stopped by a signal ends as it does on any error: Ctrl-C (SIGINT), SIGTERM (kill, a
service manager) and SIGHUP (its terminal closed) each raise ``Stopped`` in the main thread, so the join's
own cleanup runs: the tool it was running is stopped (tengig's Runner stops an interrupted program's whole
process group: the tools run in sessions of their own, which no terminal's Ctrl-C reaches), its one-test
iperf3 server is stopped, its work files are removed. Then one line names the signal.

One signal is enough: later ones are dropped, so a second Ctrl-C cannot cut the cleanup short. A signal
is kept for later where its exception would lose track of something to clean up: while the cleanup runs
(``held``: raised at its end), and while a program or a work file is being made (Python's subprocess has
forked the program but not yet noted its pid; tempfile has created the file but not yet returned its
name): the signal is sent again a moment later, when the caller holds what was made and cleans it up."""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from ..errors import Aborted

STOP_SIGNALS = {signal.SIGINT: "SIGINT (Ctrl-C)", signal.SIGTERM: "SIGTERM"}
if hasattr(signal, "SIGHUP"):  # not on Windows
    STOP_SIGNALS[signal.SIGHUP] = "SIGHUP (its terminal closed)"


class Stopped(Aborted):
    """A stop signal came; ``signum`` is which (the process exits with 128 + signum, as a shell reports it)."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(f"stopped by {STOP_SIGNALS.get(signum, signal.Signals(signum).name)}: the tools it ran "
                         "are stopped and its work files removed")


RESEND_S = 0.02  # a signal that came while a program or a work file was being made is sent again after this


class _Watch:
    received: int | None = None  # the first stop signal, once one came
    raised = False
    holding = 0  # how deep in cleanup that a signal must not interrupt


_watch = _Watch()
# Where an exception would lose what was just made: a program forked whose pid is not yet noted, a work
# file created whose name is not yet returned.
_MAKING = {subprocess.Popen.__init__.__code__, subprocess.Popen._execute_child.__code__,  # type: ignore[attr-defined]
           tempfile._mkstemp_inner.__code__}  # type: ignore[attr-defined]


def _making(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code in _MAKING:
            return True
        frame = frame.f_back
    return False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _watch.raised:
        return  # already stopping
    if _watch.received is None:
        _watch.received = signum
    if _watch.holding:
        return  # raised when the cleanup is over
    if _making(frame):
        again = threading.Timer(RESEND_S, os.kill, (os.getpid(), _watch.received))
        again.daemon = True
        again.start()
        return
    _watch.raised = True
    raise Stopped(_watch.received)


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """Within: each stop signal raises Stopped (once). Only from the main thread (Python's rule for signals).
    A SIGHUP the process was started ignoring stays ignored (`nohup tengig client join ...` keeps running when
    its terminal closes); SIGINT and SIGTERM are always taken (a shell starts a background job with SIGINT
    ignored, and its Ctrl-C or kill must still clean up)."""
    previous = {signum: signal.signal(signum, _on_signal) for signum in STOP_SIGNALS
                if not (signum == signal.SIGHUP and signal.getsignal(signum) is signal.SIG_IGN)}
    _watch.received, _watch.raised, _watch.holding = None, False, 0
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def held() -> Iterator[None]:
    """Cleanup that a stop signal must not interrupt: one that comes within is raised at its end (a no-op
    where no stop signal is watched, e.g. a Joiner run by a test)."""
    _watch.holding += 1
    try:
        yield
    finally:
        _watch.holding -= 1
    if _watch.received is not None and not _watch.raised and not _watch.holding:
        _watch.raised = True
        raise Stopped(_watch.received)
