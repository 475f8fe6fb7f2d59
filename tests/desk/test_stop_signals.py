"""desk/stop_signals.py in this process: a stop signal becomes Stopped where the desktop can still clean up
after it; never in the middle of its cleanup, nor while a program or a work file is being made (Python's
subprocess has forked the program but not yet noted its pid), and once only."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from tengig.desk import stop_signals
from tengig.desk.stop_signals import Stopped, held, stopped_by_signals


def test_a_stop_signal_raises_stopped_naming_it():
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)  # as from a terminal (nohup would ignore it)
    try:
        with stopped_by_signals(), pytest.raises(Stopped) as stopped:
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(30)  # interrupted
        assert stopped.value.signum == signal.SIGHUP and stopped.value.message.startswith("stopped by SIGHUP")
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL  # put back as it was
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_signal_ignored_at_start_stays_ignored():
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        with stopped_by_signals():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)  # nothing happens
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_signal_during_the_cleanup_is_raised_when_it_is_over_and_a_second_one_is_dropped():
    cleaned = []
    with stopped_by_signals(), pytest.raises(Stopped) as stopped:
        with held():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)  # the handler has run by now, and raised nothing
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            cleaned.append("all of it")
    assert cleaned == ["all of it"] and stopped.value.signum == signal.SIGTERM


def test_a_signal_while_a_program_is_started_is_raised_once_the_caller_holds_it():
    """As if SIGTERM came while subprocess was between forking the program and noting its pid: the signal is
    kept, and sent again once the caller has the process to stop."""

    class SignalledMidway(dict):
        def items(self):  # subprocess reads the environment after it decided to fork
            stop_signals._on_signal(signal.SIGTERM, sys._getframe())
            return super().items()

    held_proc = None
    with stopped_by_signals(), pytest.raises(Stopped):
        proc = subprocess.Popen(["sleep", "60"], env=SignalledMidway(os.environ))
        held_proc = proc
        time.sleep(30)  # the signal sent again ends this
    assert held_proc is not None
    held_proc.kill()
    held_proc.wait()


def test_a_signal_while_a_work_file_is_made_is_raised_once_its_name_is_known(tmp_path, monkeypatch):
    made = tempfile._mkstemp_inner  # type: ignore[attr-defined]

    def signalled_midway(*args, **kwargs):
        # as if SIGINT came while tempfile's own function ran: the handler sees its frame
        stop_signals._on_signal(signal.SIGINT, _FrameOf(made.__code__, sys._getframe()))
        return made(*args, **kwargs)
    monkeypatch.setattr(tempfile, "_mkstemp_inner", signalled_midway)
    names = []
    with stopped_by_signals(), pytest.raises(Stopped):
        fd, name = tempfile.mkstemp(dir=tmp_path)
        names.append(name)
        os.close(fd)
        time.sleep(30)  # the signal sent again ends this
    assert len(names) == 1


class _FrameOf:
    """A frame as the handler reads it: its code and its caller's frame."""

    def __init__(self, code, back):
        self.f_code, self.f_back = code, back
