"""The CPU this desktop's tools use, so the NAS can tell when the desktop's own CPU holds SMB back:

- a program (smbclient, iperf3): the CPU time (user + system) of the children this process waited for while it
  ran, from the kernel's rusage (Linux, macOS): the program's own and whatever it waited for in turn;
- a copy through a mounted share: the copying thread's own CPU time (its reads and writes, the kernel's SMB
  client work done in them; a FUSE client's daemon is another process and not counted);
- what the desktop may use at most: the CPUs this process may run on, or its cgroup's CPU limit when lower
  (Linux: /proc/self/cgroup and the limit under /sys/fs/cgroup, as the NAS reads smbd's).

A figure that cannot be read is None, never guessed."""
from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..backends.linux.cgroup_cpu import locate_cpu_cgroup
from ..errors import ToolOutputError

try:
    import resource
except ImportError:  # Windows: the kit measures its tools itself
    resource = None  # type: ignore[assignment]


class CpuUsed:
    """What a ``with`` block measured: ``seconds`` of CPU (None: not measured here)."""

    seconds: float | None = None


def _children_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


@contextmanager
def children_cpu() -> Iterator[CpuUsed]:
    """The CPU time of the programs this process ran and waited for inside the block (the desktop runs one
    tool at a time, so it is that tool's)."""
    used = CpuUsed()
    if resource is None:
        yield used
        return
    before = _children_seconds()
    yield used
    used.seconds = max(0.0, _children_seconds() - before)


@contextmanager
def thread_cpu() -> Iterator[CpuUsed]:
    """The CPU time of the calling thread inside the block."""
    used = CpuUsed()
    before = time.thread_time()
    yield used
    used.seconds = max(0.0, time.thread_time() - before)


def _read_local(*paths: str) -> list[str] | None:
    try:
        return [Path(p).read_text() for p in paths]
    except OSError:
        return None


def cpus_available() -> float | None:
    """CPUs' worth this desktop's tools may use: the CPUs this process may run on, or its cgroup's CPU limit
    when lower (a CPU quota of 0.3 is 0.3); None when not even the CPU count is known."""
    try:
        cpus: float | None = float(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS has no affinity
        count = os.cpu_count()
        cpus = float(count) if count else None
    try:
        cgroup = locate_cpu_cgroup(_read_local, "/proc/self/cgroup")
    except ToolOutputError:
        cgroup = None
    limit = cgroup.limit_cores if cgroup else None
    if limit is not None and limit > 0 and (cpus is None or limit < cpus):
        return limit
    return cpus
