"""A program's whole tree, for the runner to kill on a timeout or an abort: its process group, and every
process it started that left the group (fio's job processes call setsid; a tool may start a helper in a
session of its own). KILL of the group alone missed them: a fio job went on writing to the pool for 82 minutes.

The tree is read from the parent links (/proc/PID/stat on Linux; `ps -A -o pid= -o ppid=` where there is
no /proc: FreeBSD, macOS). Each process found is stopped at once, so it forks no more, and the tree is read
again until no new one appears; then all of them are killed. A process whose parent had already ended
(reparented to init) is out of reach: the runner names what still holds the program's output."""
from __future__ import annotations

import os
import signal
import subprocess
from collections import defaultdict
from pathlib import Path

PROC = Path("/proc")
MAX_PASSES = 20  # a tree that keeps forking past this is killed as found
PS_TIMEOUT_S = 5.0


def _parent_of_linux(stat: str) -> int:
    """/proc/PID/stat -> the parent's PID: the field after the command, which is in parentheses and may itself
    hold spaces and parentheses."""
    return int(stat[stat.rindex(")") + 2:].split()[1])


def _children_from_proc() -> dict[int, list[int]]:
    children: dict[int, list[int]] = defaultdict(list)
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = _parent_of_linux((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue  # ended while being read
        children[parent].append(int(entry.name))
    return children


def parse_ps_parents(text: str) -> dict[int, list[int]]:
    """`ps -A -o pid= -o ppid=` -> {parent: [children]}; lines that are not two whole numbers are left out."""
    children: dict[int, list[int]] = defaultdict(list)
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 2 and all(f.isdigit() for f in fields):
            children[int(fields[1])].append(int(fields[0]))
    return children


def _children_from_ps() -> dict[int, list[int]]:
    try:
        done = subprocess.run(["ps", "-A", "-o", "pid=", "-o", "ppid="], capture_output=True, text=True,
                              timeout=PS_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return parse_ps_parents(done.stdout)


def children_map() -> dict[int, list[int]]:
    """{parent PID: [child PIDs]} of every process on this machine, from /proc or from ps."""
    return _children_from_proc() if (PROC / "self" / "stat").exists() else _children_from_ps()


def descendants(root: int, children: dict[int, list[int]]) -> set[int]:
    """Every process below ``root`` in ``children`` (not root itself)."""
    found: set[int] = set()
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(root: int) -> set[int]:
    """KILL ``root``'s process group (the runner starts each program as the leader of its own) and every
    process below it, wherever its session; returns the descendants found."""
    _signal(root, signal.SIGSTOP)
    found: set[int] = set()
    for _ in range(MAX_PASSES):
        new = descendants(root, children_map()) - found
        if not new:
            break
        for pid in new:
            _signal(pid, signal.SIGSTOP)
        found |= new
    try:
        os.killpg(root, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in found | {root}:
        _signal(pid, signal.SIGKILL)
    return found
