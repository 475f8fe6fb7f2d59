"""What every benchmark step gets: where to run programs (Hosts), where to report progress, a cancel
token, and a log of every tool invocation (kept with the run, successes and failures alike).

Progress is a percentage of the whole run: `ctx.part(start, end)` hands a step a context whose 0-100
maps onto [start, end] of its parent, so steps never need to know where they sit in a suite."""
from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import Aborted, CommandFailed, CommandTimeout
from ..results.models import RawOutput
from ..runner import Completed
from .hosts import Hosts

Progress = Callable[[float, str], None]


@dataclass
class Leftovers:
    """The run's scratch datasets that outlived a run (bench/leftovers.py), shared by every view of a context."""

    swept: list[str] = field(default_factory=list)  # left by an earlier run, removed before this one measured
    left_behind: list[str] = field(default_factory=list)  # this run's, still there at its end: name and why


def _silent(percent: float, description: str) -> None:
    pass


@dataclass
class BenchContext:
    hosts: Hosts
    progress: Progress = _silent
    cancel: threading.Event = field(default_factory=threading.Event)
    raw: list[RawOutput] = field(default_factory=list)
    live: Callable[[dict[str, Any]], None] | None = None  # live samples (phase, MB/s) for charts
    leftovers: Leftovers = field(default_factory=Leftovers)  # scratch datasets swept and left behind
    # called once every desktop asked for has joined, before anything is measured (a fix changes its setting
    # there, so desktops that are gone leave the NAS as it was)
    on_joined: Callable[[list[Any]], None] | None = None
    _span: tuple[float, float] = (0.0, 100.0)

    def part(self, start: float, end: float) -> "BenchContext":
        """A view of this context whose progress 0-100 covers [start, end] of this one."""
        lo, hi = self._span
        span = (lo + (hi - lo) * start / 100, lo + (hi - lo) * end / 100)
        return BenchContext(self.hosts, self.progress, self.cancel, self.raw, self.live, self.leftovers,
                            self.on_joined, span)

    def uncancellable(self) -> "BenchContext":
        """For cleanup that must run after an abort: same hosts and raw log, a token nobody sets."""
        return BenchContext(self.hosts, self.progress, threading.Event(), self.raw, self.live, self.leftovers,
                            self.on_joined, self._span)

    def through(self, hosts: Hosts) -> "BenchContext":
        """A view of this context whose programs run through other ``hosts`` (same progress, cancel token
        and raw log): for a system whose own Hosts start some programs differently (the lab's smbnetfs
        mounts, lab.hosts)."""
        return BenchContext(hosts, self.progress, self.cancel, self.raw, self.live, self.leftovers, self.on_joined,
                            self._span)

    def port_reader(self, host: str, ifname: str):
        """A function giving ``host``'s port ``ifname`` (rx, tx) bytes without starting a program, where its
        Hosts can read them so (the NAS's own machine: systems.local_bench), else None."""
        reader = getattr(self.hosts, "port_reader", None)
        return reader(host, ifname) if reader else None

    def report(self, percent: float, description: str) -> None:
        lo, hi = self._span
        self.progress(round(lo + (hi - lo) * max(0.0, min(100.0, percent)) / 100, 1), description)

    def sample(self, **values: Any) -> None:
        if self.live:
            self.live(values)

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise Aborted("the benchmark was aborted; what ran was stopped and the scratch data removed")

    def run(self, host: str, argv: Sequence[str], *, timeout: float, tool: str | None = None,
            record: bool = True, check: bool = True, env: Mapping[str, str] | None = None) -> Completed:
        """Run on `host`, honouring the cancel token; keep the exact invocation (even when it fails)."""
        self.check_cancel()
        started = time.time()
        try:
            done = self.hosts.run(host, argv, timeout=timeout, check=check, env=env, cancel=self.cancel)
        except (CommandFailed, CommandTimeout) as exc:
            if record:
                self.raw.append(RawOutput(
                    tool=tool or argv[0], argv=list(exc.argv),
                    exit_code=getattr(exc, "returncode", None), stdout=exc.stdout, stderr=exc.stderr,
                    started=started, seconds=max(0.0, time.time() - started),
                ))
            raise
        if record:
            self.raw.append(RawOutput.from_completed(done, started=started, tool=tool))
        return done

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, env: Mapping[str, str] | None = None,
              stdin_pipe: bool = False, stdout_pipe: bool = False) -> subprocess.Popen:
        self.check_cancel()
        return self.hosts.spawn(host, argv, log_name=log_name, env=env, stdin_pipe=stdin_pipe,
                                stdout_pipe=stdout_pipe)
