"""Which 'running' runs still have a live process behind them: each run's process holds an advisory
lock on ``<db>.runs/<id>.lock`` from start_run until finish_run (the kernel drops it when the process
dies, however it dies). A run whose lock anyone can take is an orphan: its process was killed."""
from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

_held: dict[tuple[str, int], int] = {}
_guard = threading.Lock()


def lock_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".runs")


def hold(db_path: Path, run_id: int) -> None:
    """Take run ``run_id``'s lock for this process (until ``release``)."""
    directory = lock_dir(db_path)
    directory.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(directory / f"{run_id}.lock", os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with _guard:
        _held[(str(db_path), run_id)] = fd


def release(db_path: Path, run_id: int) -> None:
    with _guard:
        fd = _held.pop((str(db_path), run_id), None)
    if fd is not None:
        os.close(fd)
    try:
        (lock_dir(db_path) / f"{run_id}.lock").unlink()
    except OSError:
        pass


def orphaned(db_path: Path, run_id: int) -> bool:
    """True if no live process holds run ``run_id``'s lock (a run from before these locks: True too)."""
    with _guard:
        if (str(db_path), run_id) in _held:
            return False
    try:
        fd = os.open(lock_dir(db_path) / f"{run_id}.lock", os.O_RDWR)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True
