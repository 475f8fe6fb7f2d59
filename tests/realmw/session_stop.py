"""Stopping a test middlewared's whole session, as ``systemctl stop`` would, and removing what it leaves.

Real middlewared ends by SIGKILLing its own process group (main.py: "As we don't do clean shutdown ...
let's just kill our entire process group"), so its process pool's named semaphores are never unlinked,
and multiprocessing's resource tracker dies with them: five /dev/shm/sem.mp-* per run. On a TrueNAS a
reboot clears /dev/shm; a test machine starts hundreds of middlewareds, so the harness removes them."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

GRACE = 15  # s for the session to end on SIGTERM before SIGKILL


def stop_session(sid: int, *, grace: float = GRACE) -> None:
    """SIGTERM to session ``sid`` (middlewared started it as its own process group), SIGKILL to what is
    left after ``grace``; once nothing of it runs, remove the named semaphores it had mapped."""
    semaphores = semaphores_of(session_pids(sid))
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 20)):
        try:
            os.killpg(sid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while session_pids(sid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not session_pids(sid):
            break
    if not session_pids(sid):
        remove(semaphores)


def session_pids(sid: int) -> list[int]:
    """The running processes of session ``sid`` (zombies left out)."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:  # state, ppid, pgrp, session
            pids.append(int(stat.parent.name))
    return pids


def semaphores_of(pids: list[int]) -> set[Path]:
    """The named POSIX semaphores (/dev/shm/sem.*) those processes have mapped. Matched by inode: glibc
    maps a semaphore under the temporary name it made it with, before linking it to its real name."""
    inodes = set()
    for pid in pids:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
        except OSError:
            continue
        for line in maps.splitlines():
            fields = line.split(maxsplit=5)  # address perms offset dev inode path
            if len(fields) == 6 and fields[5].startswith("/dev/shm/sem."):
                inodes.add(int(fields[4]))
    found = set()
    for path in Path("/dev/shm").glob("sem.*"):
        try:
            if path.stat().st_ino in inodes:
                found.add(path)
        except OSError:
            continue
    return found


def remove(semaphores: set[Path]) -> None:
    for path in semaphores:
        path.unlink(missing_ok=True)
