"""The client ends cleanly whatever the server does: a call it stopped waiting for (a timeout, or its caller
interrupted) and a server that reads nothing any more (not even the close) leave no task of the client's
loop pending, no unclosed session, nothing printed; the close waits CLOSE_WAIT_S for the server at most."""
from __future__ import annotations

import asyncio
import errno
import gc
import os
import signal
import threading

import pytest

from tengig.client.client import Client
from tengig.client.errors import ClientError
from tests.desk.hostile_nas import SILENT, HostileNas

NOISE = ("Traceback", "Task was destroyed", "Unclosed", "Exception ignored")

pytestmark = pytest.mark.abuse


def _ended_quietly(client: Client, capfd) -> None:
    assert [task for task in asyncio.all_tasks(client._loop) if not task.done()] == []
    gc.collect()  # what asyncio and aiohttp print of what was left, they print when it is collected
    err = capfd.readouterr().err
    assert [word for word in NOISE if word in err] == [], err


def test_a_call_that_timed_out_to_a_silent_server_ends_in_one_error_and_a_quiet_close(capfd):
    with HostileNas([SILENT]) as nas:
        client = Client(f"{nas.url}/api/current")
        with pytest.raises(ClientError) as timed_out:
            client.call("tengig.bench.session.next", 10, timeout=0.5)
        assert timed_out.value.errno == errno.ETIMEDOUT and "within 0.5 s" in timed_out.value.message
        client.close()
        _ended_quietly(client, capfd)


def test_a_call_whose_caller_was_interrupted_is_cancelled_with_it(capfd):
    """A signal's exception in the thread waiting for the answer (as tengig client join's stop signals raise)."""

    class Interrupted(BaseException):
        pass

    def interrupt(signum, frame):
        raise Interrupted()
    previous = signal.signal(signal.SIGUSR1, interrupt)
    try:
        with HostileNas([SILENT]) as nas:
            client = Client(f"{nas.url}/api/current")
            threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1)).start()
            with pytest.raises(Interrupted):
                client.call("tengig.bench.session.next", 10)
            client.close()
            _ended_quietly(client, capfd)
    finally:
        signal.signal(signal.SIGUSR1, previous)
