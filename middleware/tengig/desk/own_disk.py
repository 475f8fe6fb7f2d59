"""This desktop's own disk, measured the way the NAS's SMB copies are (`tengig client join --disk PATH`): the
question is "does my NAS over SMB beat my local disk?", and the disk is the one PATH is on. One file of the
SMB copy's size, written then read sequentially, one block at a time (a copy's pattern), with the cache
kept out:

- fio when it is on PATH: `--direct=1 --ioengine=psync --bs=1M`, a write job (fsynced at its end) then a
  read job; its JSON is what the NAS reads;
- else tengig's own timed copy in 4 MiB blocks (desk/mounted_copy.py: O_DIRECT on Linux, F_NOCACHE on macOS,
  else fsync and the cached pages dropped, said in its lines) of the prepared random file there and back.

fio too falls back to the own copy where the file system refuses direct I/O (tmpfs). The file is removed
afterwards, whatever happened; it must fit PATH's disk with room to spare (checked first)."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from ..bench.parse.copy_parse import OWN_COPY
from ..errors import CommandNotFound, CommandTimeout
from ..runner import Runner
from .mounted_copy import MountedCopyError, get, put

FIO_JOBS = ("write", "read")


def fio_argv(path: Path, size: int) -> list[str]:
    return ["fio", "--output-format=json", f"--filename={path}", f"--size={size}", "--bs=1M", "--direct=1",
            "--ioengine=psync", "--iodepth=1", "--name=write", "--rw=write", "--end_fsync=1",
            "--name=read", "--rw=read", "--stonewall"]


def measure(runner: Runner, directory: Path, size: int, source: Path) -> dict[str, Any]:
    """The submission for one own-disk test in ``directory``; ``source``: a file of ``size`` random bytes
    (the own copy writes it)."""
    fd, name = tempfile.mkstemp(prefix="tengig-disk-", suffix=".dat", dir=directory)
    os.close(fd)
    path = Path(name)
    started = time.monotonic()
    try:
        if shutil.which("fio"):
            argv = fio_argv(path, size)
            try:
                done = runner.run(argv, timeout=120 + 4 * size / 2**20, check=False)
            except (CommandNotFound, CommandTimeout) as exc:
                done = None
                why = exc.message
            if done is not None and done.returncode == 0:
                return {"exit_code": 0, "stdout": done.stdout, "stderr": done.stderr[-4096:], "argv": argv,
                        "seconds": time.monotonic() - started}
            why = (done.stderr or done.stdout).strip()[-300:] if done is not None else why
        else:
            why = "fio is not on PATH"
        argv = [OWN_COPY, str(path)]
        try:
            lines = [put(source, path, size), get(path, size)]
        except MountedCopyError as exc:
            return {"exit_code": 1, "stderr": f"{exc} (fio: {why})", "argv": argv,
                    "seconds": time.monotonic() - started}
        return {"exit_code": 0, "stdout": "\n".join(lines) + "\n", "stderr": f"fio not used: {why}", "argv": argv,
                "seconds": time.monotonic() - started}
    finally:
        path.unlink(missing_ok=True)
