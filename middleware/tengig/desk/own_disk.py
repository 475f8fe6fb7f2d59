"""This desktop's own disk, measured the way the NAS's SMB copies are (`tengig client join --disk PATH`): the
question is "does my NAS over SMB beat my local disk?", and the disk is the one PATH is on. One file of the
SMB copy's size, written then read sequentially, one block at a time (a copy's pattern), with the cache
kept out:

- fio when it is on PATH: `--direct=1 --ioengine=psync --bs=1M`, a write job (fsynced at its end) then a
  read job; its JSON is what the NAS reads;
- else tengig's own timed copy in 4 MiB blocks (desk/mounted_copy.py: O_DIRECT on Linux, F_NOCACHE on macOS,
  else fsync and the cached pages dropped, said in its lines) of the prepared random file there and back.

fio too falls back to the own copy where the file system refuses direct I/O (tmpfs), and where PATH has a
character fio's --filename cannot carry (a ':' is escaped, fio's `\\:`; '#' and ';' begin a comment for fio
and cannot be escaped). The file is made in a fresh directory of tengig's own in PATH (mode 0700, made
exclusively: never one another local user made there, desk/beneath.py), created exclusively, and both are
removed afterwards, whatever happened; it must fit PATH's disk with room to spare (checked first, with
everything else the run holds there at once: desk/instructions.check_room)."""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

from ..errors import CommandNotFound, CommandTimeout
from ..join_protocol.lines import OWN_COPY
from ..join_protocol.naming import DESK_FOLDER, DISK_FILE, fio_filename
from ..runner import Runner
from .beneath import Beneath, private_dir, remove_private, said
from .mounted_copy import MountedCopyError, get, put

FIO_JOBS = ("write", "read")
# fio reads a comment from either to the end of an option's value, and has no escape for them (fio 3.33).
FIO_UNSAYABLE = ("#", ";")


def fio_argv(path: Path, size: int) -> list[str]:
    """fio's argv writing then reading exactly ``path`` (its ':' escaped: fio's separator of file names)."""
    return ["fio", "--thread", "--output-format=json", f"--filename={fio_filename(str(path))}", f"--size={size}",
            "--bs=1M", "--direct=1", "--ioengine=psync", "--iodepth=1", "--name=write", "--rw=write", "--end_fsync=1",
            "--name=read", "--rw=read", "--stonewall"]


def measure(runner: Runner, directory: Path, size: int, source: Path) -> dict[str, Any]:
    """The submission for one own-disk test in ``directory``; ``source``: a file of ``size`` random bytes
    (the own copy writes it)."""
    started = time.monotonic()
    try:
        folder = private_dir(directory, DESK_FOLDER)
    except OSError as exc:
        return {"exit_code": 1, "stderr": f"cannot make tengig's directory in {directory}: {exc.strerror or exc}",
                "argv": [OWN_COPY, str(directory)], "seconds": time.monotonic() - started}
    done: dict[str, Any] = {"exit_code": 1, "argv": [OWN_COPY, str(folder)]}
    try:
        place = folder.child(DISK_FILE)
        try:
            os.close(place.open_file(os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError as exc:
            done["stderr"] = f"cannot make tengig's file {place}: {said(exc, place)}"
        else:
            done = _measured(runner, place, size, source)
    finally:
        left = remove_private(folder)
    if left:
        done["stderr"] = (done.get("stderr", "") + f"; could not remove {', '.join(left)}")[-4096:]
    return {**done, "seconds": time.monotonic() - started}


def _measured(runner: Runner, place: Beneath, size: int, source: Path) -> dict[str, Any]:
    """fio's run on ``place``, else the own timed copy, saying why not fio (a submission but its seconds)."""
    path = place.path
    unsayable = [c for c in FIO_UNSAYABLE if c in str(path)]
    if unsayable:
        why = f"fio cannot take a file name with {' or '.join(repr(c) for c in unsayable)} ({path})"
    elif shutil.which("fio"):
        argv = fio_argv(path, size)
        try:
            done = runner.run(argv, timeout=120 + 4 * size / 2**20, check=False)
        except (CommandNotFound, CommandTimeout) as exc:
            done = None
            why = exc.message
        if done is not None and done.returncode == 0:
            return {"exit_code": 0, "stdout": done.stdout, "stderr": done.stderr[-4096:], "argv": argv}
        why = (done.stderr or done.stdout).strip()[-300:] if done is not None else why
    else:
        why = "fio is not on PATH"
    argv = [OWN_COPY, str(path)]
    try:
        lines = [put(source, place, size), get(place, size)]
    except MountedCopyError as exc:
        return {"exit_code": 1, "stderr": f"{exc} (fio: {why})", "argv": argv}
    return {"exit_code": 0, "stdout": "\n".join(lines) + "\n", "stderr": f"fio not used: {why}", "argv": argv}
