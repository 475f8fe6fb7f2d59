"""The machine's one lab, one user at a time: the lock a lab test session and the benchmark scripts hold while
they use it (`flock /run/tengig/lab.lock CMD` takes the same one from a shell, as `make demo` does). The suite's
second lab (TENGIG_LAB_INSTANCE=2, tests/second_lab.sh) has its own: /run/tengig/lab-2.lock."""
from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from tengig.lab.instance import suffix

LAB_LOCK = Path(f"/run/tengig/lab{suffix()}.lock")


@contextlib.contextmanager
def lab_lock() -> Iterator[None]:
    """Held while the block runs: a lab test session or another script waits for it."""
    LAB_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LAB_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
