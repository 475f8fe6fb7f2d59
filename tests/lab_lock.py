"""The machine's one lab, one user at a time: the lock a lab test session and the benchmark scripts hold while
they use it (`flock /run/tengig/lab.lock CMD` takes the same one from a shell, as `make demo` does)."""
from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

LAB_LOCK = Path("/run/tengig/lab.lock")


@contextlib.contextmanager
def lab_lock() -> Iterator[None]:
    """Held while the block runs: a lab test session or another script waits for it."""
    LAB_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LAB_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
