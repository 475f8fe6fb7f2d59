"""CheckinGate: a change stays only if someone confirms it in time (real threads, real time)."""
import threading
import time

from tengig.checkin import CheckinGate


def test_a_confirmation_from_another_thread_ends_the_wait_at_once():
    gate, ticks = CheckinGate(), []
    threading.Timer(0.3, gate.confirm).start()
    started = time.monotonic()
    assert gate.wait(120, tick=ticks.append) is True
    assert time.monotonic() - started < 60  # long before the 120 s run out, however busy the machine
    assert ticks and ticks[0] > 119  # the countdown started near the full time
    assert gate.seconds_left is None  # nothing waits any more


def test_nobody_confirms_and_the_wait_gives_up_when_the_time_is_up():
    gate, ticks = CheckinGate(), []
    started = time.monotonic()
    assert gate.wait(1.5, tick=ticks.append) is False
    assert time.monotonic() - started >= 1.4  # it waited (how much longer depends on the machine)
    assert ticks == sorted(ticks, reverse=True) and len(ticks) >= 2  # counts down, about once a second
    assert gate.confirm() is False  # too late: nothing to confirm


def test_a_cancel_ends_the_wait_unconfirmed():
    gate, cancel = CheckinGate(), threading.Event()
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    assert gate.wait(120, cancel=cancel) is False
    assert time.monotonic() - started < 60  # long before the 120 s run out


def test_confirm_without_a_wait_is_refused_and_does_not_confirm_the_next_wait():
    gate = CheckinGate()
    assert gate.confirm() is False
    assert gate.wait(0.5) is False  # an early confirm must not pre-approve a later change
