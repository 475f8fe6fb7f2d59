"""Small files, as this desktop copies a folder of them (the NAS's `smallfiles` phase): N files of one size
written to the share, listed (stat), read back and deleted, each batch timed here line by line.

- Through smbclient: one batch per command (`mput *`, `ls`, `mget *`, `del *`) between two `pwd` commands,
  the whole output read as it comes, each line with the seconds since smbclient started in front (stdbuf
  keeps smbclient's lines unbuffered). The NAS reads the times (bench/parse/smallfiles_parse.py).
- Through a mounted share (--mount) and on this desktop's own disk (--disk): tengig's own timer, one os call
  at a time (open or create, the data, close; stat; unlink), each timed by itself, printed in the same form.

The files are made here first (random bytes, one directory per size under --workdir) and removed when the
next size is prepared, and when the desktop leaves. A batch of tengig's own timer that fails midway removes
the files it wrote (and the directory it made), and says what it could not remove.

tengig's own timer follows no link beneath the mount or --disk and works only on regular files there
(desk/beneath.py: each open relative to its directory's descriptor, O_NOFOLLOW, O_NONBLOCK, then fstat, untimed).
On --disk, where another local user may write, every run of batches is in a fresh directory of tengig's own
(mode 0700, made exclusively) whose files are created exclusively, and which is removed at the end."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..join_protocol.lines import OWN_TIMER, own_file_line, stamped
from ..process_tree import kill_tree
from .beneath import NOFOLLOW, Beneath, open_dir_at, open_file_at, private_dir, refused, regular, why_not
from .instructions import check_room

OUTPUT_BUDGET = 768 * 1024  # a batch's smbclient lines (the most files a run asks, about 100 characters each)
STDERR_BUDGET = 4096  # why an own-timer run failed and what it could not remove (join_protocol/limits.py)
STDBUF = ["stdbuf", "-oL", "-eL"]  # smbclient's own lines, each as it is printed
SMALL_PREFIX = "tengig-small-"  # this desktop's directories of small files (in --workdir, in --disk)


def file_names(count: int) -> list[str]:
    return [f"f{i:05d}.bin" for i in range(count)]


class SmallSet:
    """One size's files on this desktop: ``src`` (what is written) and ``dst`` (where reads land)."""

    def __init__(self, workdir: Path, size: int, count: int):
        check_room(workdir, 2 * size * count)
        self.size, self.count = size, count
        self.root = Path(tempfile.mkdtemp(prefix=SMALL_PREFIX, dir=workdir))
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
        killer = threading.Timer(timeout, kill_tree, (proc.pid,))  # a program that hangs silent is stopped all the same
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
            kill_tree(proc.pid)
            proc.wait()
    if time.monotonic() - started >= timeout:
        out.append(stamped(time.monotonic() - started, f"timed out after {timeout:g} s"))
    return {"exit_code": code, "stdout": "\n".join(out) + "\n", "argv": list(argv),
            "seconds": time.monotonic() - started}


def _drop_cached(dir_fd: int, name: str, shown: Path) -> None:
    """The file's cached pages dropped (untimed), so a read comes from the disk or the share; anything but a
    regular file refused before it is opened (desk/beneath.py)."""
    fd = open_file_at(dir_fd, name, os.O_RDONLY, shown)
    try:
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    value = call()
    return value, time.perf_counter() - t0


def _open_timed(dir_fd: int, name: str, flags: int, shown: Path) -> tuple[int, float]:
    """``name`` in ``dir_fd`` opened, never through a link nor waiting on a FIFO, the open alone timed; then
    (untimed, before a byte moves) refused unless it is a regular file."""
    try:
        fd, seconds = _timed(lambda: os.open(name, flags | NOFOLLOW, 0o644, dir_fd=dir_fd))
    except OSError as exc:
        raise why_not(dir_fd, name, shown, "a regular file", exc) from exc
    return regular(fd, shown), seconds


def own_batch(op: str, dir_fd: int, shown: Path, small: SmallSet, created: list[str], *,
              exclusive: bool = False) -> Iterator[str]:
    """tengig's own timer over one batch in the directory ``dir_fd`` (``shown``: its path, for messages): its
    lines (without their times); each file a write creates is named in ``created`` as soon as it is there.
    ``exclusive``: a write creates each file afresh (O_EXCL), in a directory of tengig's own."""
    names = file_names(small.count)
    if op == "read":
        os.sync()
        for name in names:
            _drop_cached(dir_fd, name, shown / name)
    data = [(small.src / n).read_bytes() for n in names] if op == "write" else []
    create = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    yield f"{OWN_TIMER}: start {op}"
    for i, name in enumerate(names):
        if op == "write":
            fd, t_open = _open_timed(dir_fd, name, create, shown / name)
            created.append(name)
            try:
                _, t_io = _timed(lambda: os.write(fd, data[i]))
            finally:
                _, t_close = _timed(lambda: os.close(fd))
            moved = len(data[i])
        elif op == "read":
            fd, t_open = _open_timed(dir_fd, name, os.O_RDONLY, shown / name)
            try:
                moved, t_io = _timed(lambda: len(os.read(fd, small.size + 1)))  # one more: a longer file shows
            finally:
                _, t_close = _timed(lambda: os.close(fd))
        elif op == "stat":
            found, t_open = _timed(lambda: os.stat(name, dir_fd=dir_fd, follow_symlinks=False))
            if not stat.S_ISREG(found.st_mode):
                raise refused(shown / name, found.st_mode, "a regular file")
            moved, t_io, t_close = found.st_size, 0.0, 0.0
        else:
            _, t_open = _timed(lambda: os.unlink(name, dir_fd=dir_fd))  # a link itself, never what it names
            moved, t_io, t_close = small.size, 0.0, 0.0
        yield own_file_line(name, moved, t_open, t_io, t_close)
    yield f"{OWN_TIMER}: end {op}"


def remove_written(place: Beneath, names: Sequence[str], *, made: bool) -> list[str]:
    """Removes the files named ``names`` in ``place`` (and the directory, when ``made``: only if nothing else
    is in it), never through a link; what could not be removed, each as "path: why"."""
    left: list[str] = []
    if not names and not made:
        return left
    try:
        with place.parent_fd() as parent:
            if names:
                _unlink_all(parent, place, names, left)
            if made:
                try:
                    os.rmdir(place.name, dir_fd=parent)
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    left.append(f"{place}: {exc.strerror or exc}")
    except OSError as exc:
        left.append(f"{exc.filename or place}: {exc.strerror or exc}")
    return left


def _unlink_all(parent: int, place: Beneath, names: Sequence[str], left: list[str]) -> None:
    try:
        fd = open_dir_at(parent, place.name, place.path)
    except FileNotFoundError:
        return
    try:
        for name in names:
            try:
                os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                left.append(f"{place.path / name}: {exc.strerror or exc}")
    finally:
        os.close(fd)


def own_run(ops: Sequence[str], place: Beneath, small: SmallSet, *, fresh: bool = False) -> dict[str, Any]:
    """tengig's own timer over ``ops`` in the directory ``place`` (made first when it is not there; a link or
    anything but a directory there refused; removed after a delete); a submission. ``fresh``: ``place`` is a
    directory of tengig's own just made (private_dir): its files are created exclusively, and it is removed
    whatever happens. Whatever stops it midway, the files it wrote there are removed (and the directory
    when it made it), and its stderr names what could not be."""
    started = time.monotonic()
    argv = [OWN_TIMER, *ops, str(place)]
    lines: list[str] = []
    created: list[str] = []
    made = fresh
    try:
        if not fresh:
            made = place.make_dir()
        with place.dir_fd() as dir_fd:
            for op in ops:
                for line in own_batch(op, dir_fd, place.path, small, created, exclusive=fresh):
                    lines.append(stamped(time.monotonic() - started, line))
        if "delete" in ops:
            with place.parent_fd() as parent:
                os.rmdir(place.name, dir_fd=parent)
    except BaseException as exc:
        left = remove_written(place, created, made=made)
        if not isinstance(exc, OSError):
            raise
        why = f"{exc.filename or place}: {exc.strerror or exc}"
        if left:
            why += f"; could not remove {len(left)}: {', '.join(left)}"
        return {"exit_code": 1, "stdout": "\n".join(lines) + "\n", "argv": argv, "stderr": why[:STDERR_BUDGET],
                "seconds": time.monotonic() - started}
    if fresh and "delete" not in ops:
        remove_written(place, created, made=True)
    return {"exit_code": 0, "stdout": "\n".join(lines) + "\n", "argv": argv, "seconds": time.monotonic() - started}


def own_disk_run(ops: Sequence[str], disk: Path, small: SmallSet) -> dict[str, Any]:
    """``ops`` in a fresh directory of tengig's own in ``disk`` (--disk; mode 0700, made exclusively: never
    one another user made there), its files created exclusively, all removed at the end."""
    try:
        place = private_dir(disk, SMALL_PREFIX)
    except OSError as exc:
        return {"exit_code": 1, "stderr": f"cannot make tengig's directory in {disk}: {exc.strerror or exc}",
                "argv": [OWN_TIMER, *ops, str(disk)]}
    return own_run(ops, place, small, fresh=True)
