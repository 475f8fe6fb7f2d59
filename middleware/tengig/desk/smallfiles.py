"""Small files, as this desktop copies a folder of them (the NAS's `smallfiles` phase): N files of one size
written to the share, listed (stat), read back and deleted, each batch timed here line by line.

- Through smbclient: one batch per command (`mput *`, `ls`, `mget *`, `del *`) between two `pwd` commands,
  the whole output read as it comes, each line with the seconds since smbclient started in front (stdbuf
  keeps smbclient's lines unbuffered). The NAS reads the times (bench/parse/smallfiles_parse.py).
- Through a mounted share (--mount) and on this desktop's own disk (--disk): tengig's own timer, one os call
  at a time (open or create, the data, close; stat; unlink), each timed by itself, printed in the same form.

The files are made here first (random bytes, one directory per size under --workdir) and removed when the
next size is prepared, and when the desktop leaves. A batch of tengig's own timer that fails midway removes
the files it wrote (and the directory it made), and says what it could not remove."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..bench.parse.smallfiles_parse import OWN_TIMER, own_file_line, stamped
from .instructions import check_room

OUTPUT_BUDGET = 768 * 1024  # a batch's smbclient lines (the most files a run asks, about 100 characters each)
STDERR_BUDGET = 4096  # why an own-timer run failed and what it could not remove (bench/phases/smallfiles_plan.py)
STDBUF = ["stdbuf", "-oL", "-eL"]  # smbclient's own lines, each as it is printed


def file_names(count: int) -> list[str]:
    return [f"f{i:05d}.bin" for i in range(count)]


class SmallSet:
    """One size's files on this desktop: ``src`` (what is written) and ``dst`` (where reads land)."""

    def __init__(self, workdir: Path, size: int, count: int):
        check_room(workdir, 2 * size * count)
        self.size, self.count = size, count
        self.root = Path(tempfile.mkdtemp(prefix="tengig-small-", dir=workdir))
        self.src, self.dst = self.root / "src", self.root / "dst"
        try:
            self.src.mkdir()
            self.dst.mkdir()
            for name in file_names(count):
                (self.src / name).write_bytes(os.urandom(size))
        except BaseException:
            self.remove()
            raise

    def matches(self, size: int, count: int) -> bool:
        return (self.size, self.count) == (size, count) and self.src.is_dir()

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def smbclient_commands(op: str, directory: str, small: SmallSet) -> str:
    """smbclient's -c script of one batch; ``directory``: the size's directory in the share (tengig's own
    validated name, instructions.small_dir), the local paths tengig's own."""
    if op == "prepare":
        parent = directory.rsplit("\\", 1)[0]
        return f"mkdir {parent}; mkdir {directory}"
    batch = {"write": f"prompt OFF; lcd {small.src}; cd {directory}; pwd; mput *; pwd",
             "stat": f"cd {directory}; pwd; ls; pwd",
             "read": f"prompt OFF; lcd {small.dst}; cd {directory}; pwd; mget *; pwd",
             "delete": f"cd {directory}; pwd; del *; pwd; cd ..; rmdir {directory.rsplit(chr(92), 1)[1]}"}
    return batch[op]


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def timed_run(argv: Sequence[str], *, timeout: float, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``argv``, each line of its output (stdout and stderr together) with the seconds since it started in
    front, read as it arrives; a submission."""
    started = time.monotonic()
    out: list[str] = []
    used = 0
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, bufsize=1, env=env, start_new_session=True)
    killer = None
    try:
        killer = threading.Timer(timeout, _kill_group, (proc,))  # a program that hangs silent is stopped all the same
        killer.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            timed = stamped(time.monotonic() - started, line.rstrip())
            if used + len(timed) < OUTPUT_BUDGET:
                out.append(timed)
                used += len(timed) + 1
        code = proc.wait()
    finally:
        if killer is not None:
            killer.cancel()
        if proc.poll() is None:  # interrupted (a signal's exception): the batch, in its own session, stops too
            _kill_group(proc)
            proc.wait()
    if time.monotonic() - started >= timeout:
        out.append(stamped(time.monotonic() - started, f"timed out after {timeout:g} s"))
    return {"exit_code": code, "stdout": "\n".join(out) + "\n", "argv": list(argv),
            "seconds": time.monotonic() - started}


def _drop_cached(path: Path) -> None:
    """The file's cached pages dropped (untimed), so a read comes from the disk or the share."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    value = call()
    return value, time.perf_counter() - t0


def own_batch(op: str, directory: Path, small: SmallSet, created: list[str]) -> Iterator[str]:
    """tengig's own timer over one batch in ``directory``: its lines (without their times); each file a write
    creates is named in ``created`` as soon as it is there."""
    names = file_names(small.count)
    if op == "read":
        os.sync()
        for name in names:
            _drop_cached(directory / name)
    data = [(small.src / n).read_bytes() for n in names] if op == "write" else []
    yield f"{OWN_TIMER}: start {op}"
    for i, name in enumerate(names):
        path = directory / name
        if op == "write":
            fd, t_open = _timed(lambda: os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
            created.append(name)
            try:
                _, t_io = _timed(lambda: os.write(fd, data[i]))
            finally:
                _, t_close = _timed(lambda: os.close(fd))
            moved = len(data[i])
        elif op == "read":
            fd, t_open = _timed(lambda: os.open(path, os.O_RDONLY))
            try:
                moved, t_io = _timed(lambda: len(os.read(fd, small.size + 1)))
            finally:
                _, t_close = _timed(lambda: os.close(fd))
        elif op == "stat":
            moved, t_open = _timed(lambda: os.stat(path).st_size)
            t_io = t_close = 0.0
        else:
            _, t_open = _timed(lambda: os.unlink(path))
            moved, t_io, t_close = small.size, 0.0, 0.0
        yield own_file_line(name, moved, t_open, t_io, t_close)
    yield f"{OWN_TIMER}: end {op}"


def remove_written(directory: Path, names: Sequence[str], *, made: bool) -> list[str]:
    """Removes the files named ``names`` in ``directory`` (and the directory, when ``made``: only if nothing
    else is in it); what could not be removed, each as "path: why"."""
    left = []
    for name in names:
        try:
            (directory / name).unlink(missing_ok=True)
        except OSError as exc:
            left.append(f"{directory / name}: {exc.strerror or exc}")
    if made:
        try:
            directory.rmdir()
        except FileNotFoundError:
            pass
        except OSError as exc:
            left.append(f"{directory}: {exc.strerror or exc}")
    return left


def own_run(ops: Sequence[str], directory: Path, small: SmallSet) -> dict[str, Any]:
    """tengig's own timer over ``ops`` in ``directory`` (made first when it is not there, removed after a
    delete); a submission. Whatever stops it midway, the files it wrote there are removed (and the directory
    when it made it), and its stderr names what could not be."""
    started = time.monotonic()
    argv = [OWN_TIMER, *ops, str(directory)]
    lines: list[str] = []
    created: list[str] = []
    made = False
    try:
        try:
            directory.mkdir()
            made = True
        except FileExistsError:
            pass
        for op in ops:
            for line in own_batch(op, directory, small, created):
                lines.append(stamped(time.monotonic() - started, line))
        if "delete" in ops:
            directory.rmdir()
    except BaseException as exc:
        left = remove_written(directory, created, made=made)
        if not isinstance(exc, OSError):
            raise
        why = f"{exc.filename or directory}: {exc.strerror or exc}"
        if left:
            why += f"; could not remove {len(left)}: {', '.join(left)}"
        return {"exit_code": 1, "stdout": "\n".join(lines) + "\n", "argv": argv, "stderr": why[:STDERR_BUDGET],
                "seconds": time.monotonic() - started}
    return {"exit_code": 0, "stdout": "\n".join(lines) + "\n", "argv": argv, "seconds": time.monotonic() - started}
