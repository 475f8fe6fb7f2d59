"""SMB copies through a share this desktop has mounted (`tengig client join --mount PATH`): macOS's SMB
client is the mounted share (mount_smbfs, Finder), and a Linux desktop may have one (CIFS, a FUSE mount,
GNOME's gvfs) and no smbclient. The copy is timed here and printed as one line (bench/parse/copy_parse.py's
`tengig-copy: OP N bytes in S s (HOW)`); the NAS checks its bytes on its own port as for any copy.

The desktop's own cache is kept out of the figure, as smbclient keeps it out (it has none):
- Linux: the share's file is opened with O_DIRECT (unbuffered) where the file system takes it; where it
  does not (EINVAL), a write is fsynced before the clock stops and its cached pages dropped
  (posix_fadvise DONTNEED), and a read starts with the file's cached pages dropped.
- macOS: F_NOCACHE on the file (unbuffered I/O).
HOW says which. The file to put is read from this desktop's work file, as smbclient's put reads it; a
get reads into memory and drops it (smbclient's get goes to /dev/null)."""
from __future__ import annotations

import errno
import fcntl
import mmap
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..bench.parse.copy_parse import format_own_copy

CHUNK = 4 * 1024 * 1024  # a multiple of every sector and page size O_DIRECT asks buffers to be aligned to
O_DIRECT = getattr(os, "O_DIRECT", 0)
F_NOCACHE = getattr(fcntl, "F_NOCACHE", None)  # macOS
DONTNEED = getattr(os, "POSIX_FADV_DONTNEED", None)


class MountedCopyError(Exception):
    """A copy through the mount failed: the message says where and why."""


def remote_path(mount: Path, remote: str) -> Path:
    """The share's ``remote`` (tengig's scratch name, backslashes: desk/instructions.REMOTE_RE) under ``mount``."""
    return mount.joinpath(*remote.split("\\"))


def _open(path: Path, flags: int) -> tuple[int, bool, str]:
    """An fd of ``path`` with the cache kept out where the OS allows: (fd, unbuffered, how)."""
    if O_DIRECT:
        try:
            return os.open(path, flags | O_DIRECT, 0o644), True, "unbuffered (O_DIRECT)"
        except OSError as exc:
            if exc.errno != errno.EINVAL:  # else the file system does not take O_DIRECT: cached, then purged
                raise
    fd = os.open(path, flags, 0o644)
    if F_NOCACHE is not None:
        fcntl.fcntl(fd, F_NOCACHE, 1)
        return fd, True, "unbuffered (F_NOCACHE)"
    return fd, False, "cached"


def _purged(fd: int) -> bool:
    """The file's cached pages dropped (Linux, FreeBSD); False where the OS has no way."""
    if DONTNEED is None:
        return False
    os.posix_fadvise(fd, 0, 0, DONTNEED)
    return True


@contextmanager
def _aligned_chunk() -> Iterator[memoryview]:
    """A CHUNK-sized buffer, page-aligned as O_DIRECT wants (an anonymous mmap), released after use."""
    buffer = mmap.mmap(-1, CHUNK)
    view = memoryview(buffer)
    try:
        yield view
    finally:
        view.release()
        buffer.close()


def put(source: Path, target: Path, size: int) -> str:
    """``source`` (size bytes) copied to ``target`` on the mount; the tengig-copy line."""
    try:
        with _aligned_chunk() as view, open(source, "rb", buffering=0) as src:
            started = time.monotonic()
            fd, unbuffered, how = _open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            try:
                left = size
                while left > 0:
                    got = src.readinto(view[:min(CHUNK, left)])
                    if not got:
                        raise MountedCopyError(f"{source} ended {left} bytes early")
                    written = 0
                    while written < got:
                        written += os.write(fd, view[written:got])
                    left -= got
                os.fsync(fd)  # on the NAS before the clock stops
                if not unbuffered:
                    how += ", fsynced, then its cached pages dropped" if _purged(fd) else ", fsynced"
            finally:
                os.close(fd)
            seconds = time.monotonic() - started
    except OSError as exc:
        raise MountedCopyError(f"cannot write {target}: {exc.strerror or exc}") from exc
    return format_own_copy("put", size, seconds, how)


def get(source: Path, size: int) -> str:
    """``source`` on the mount read into memory and dropped; the tengig-copy line."""
    try:
        with _aligned_chunk() as view:
            started = time.monotonic()
            fd, unbuffered, how = _open(source, os.O_RDONLY)
            try:
                if not unbuffered:
                    how += ", its cached pages dropped first" if _purged(fd) else " (this OS cannot drop them)"
                total = 0
                while got := os.readv(fd, [view]):
                    total += got
            finally:
                os.close(fd)
            seconds = time.monotonic() - started
    except OSError as exc:
        raise MountedCopyError(f"cannot read {source}: {exc.strerror or exc}") from exc
    if total != size:
        raise MountedCopyError(f"{source} holds {total} bytes, the NAS asked for {size}")
    return format_own_copy("get", size, seconds, f"{how}, read into memory and discarded")
