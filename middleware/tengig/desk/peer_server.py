"""A desktop's side of a ``peer`` instruction (desk/peer_rule.py checks it first): the one-test iperf3
server it runs for another desktop (at most one at a time, stopped at its deadline whatever the desktop is
doing then, e.g. waiting on a NAS that fell silent), and the client it runs towards one, tried again while
the other's server is not listening yet."""
from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import Any

from ..runner import Runner

CONNECT_TRIES = 20  # the other desktop's server starts once its own instruction arrives
CONNECT_PAUSE_S = 0.25
REFUSED = "Connection refused"


class PeerServer:
    def __init__(self, runner: Runner):
        self.runner = runner
        self.proc: subprocess.Popen | None = None
        self.argv: list[str] = []
        self.port = 0
        self.deadline = 0.0
        self._timer: threading.Timer | None = None
        self._expired = False

    def listen(self, argv: list[str], port: int, lifetime: float) -> dict[str, Any]:
        self.stop()
        self.proc = self.runner.spawn(argv, log_path=os.devnull, stdout_pipe=True)
        self.argv, self.port, self.deadline = argv, port, time.monotonic() + lifetime
        self._expired = False
        # the main thread may be waiting on the NAS at the deadline: a timer ends the server then
        self._timer = threading.Timer(lifetime, self._deadline_passed, (self.proc,))
        self._timer.daemon = True
        self._timer.start()
        return {"exit_code": 0, "stdout": "", "argv": argv}

    def _deadline_passed(self, proc: subprocess.Popen) -> None:
        """On the timer's thread: only a signal (the main thread reaps the process)."""
        if proc is self.proc and proc.poll() is None:
            self._expired = True
            proc.terminate()

    def served(self, port: int) -> dict[str, Any]:
        """What the server on ``port`` printed once its test ended (it ends by itself after one test), waited
        for until its deadline."""
        if self.proc is None or port != self.port:
            return {"exit_code": 2, "stderr": f"refused: no iperf3 server of this run on port {port}", "argv": []}
        proc, argv = self.proc, self.argv
        try:
            out, _ = proc.communicate(timeout=max(0.0, self.deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.stop()
            return {"exit_code": 124, "stderr": "the iperf3 server served no test before its deadline", "argv": argv}
        finally:
            self._forget()  # an interrupted wait leaves the server to stop(), not running on its own
        if self._expired:
            return {"exit_code": 124, "stderr": "the iperf3 server served no test before its deadline", "argv": argv}
        return {"exit_code": proc.returncode, "stdout": out or "", "argv": argv}

    def expire(self) -> None:
        if self.proc is not None and time.monotonic() > self.deadline:
            self.stop()

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
        self._forget()

    def _forget(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            self.proc = None
        if self.proc is None and self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def connect(run, argv: list[str]) -> dict[str, Any]:
    """``run(argv)`` (the desktop's timed tool), again while iperf3 says the server refused the connection.
    Read from its words, not its exit code: iperf3 3.12 with -J exits 0 on "unable to connect to server:
    Connection refused" (the error is a key of its JSON)."""
    for _ in range(CONNECT_TRIES - 1):
        result = run(argv)
        if REFUSED not in result.get("stdout", "") + result.get("stderr", ""):
            return result
        time.sleep(CONNECT_PAUSE_S)
    return run(argv)
