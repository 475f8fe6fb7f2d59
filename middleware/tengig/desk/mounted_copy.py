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
get reads the bytes the NAS asked for (never more: a share's file may never end) into memory and drops them
(smbclient's get goes to /dev/null).

The share's content is not the desktop's: beneath the mount nothing is followed, and only a regular file is
copied (desk/beneath.py: a link, a FIFO, a device is refused, naming it)."""
from __future__ import annotations

import errno
import fcntl
import mmap
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import TengigError
from ..join_protocol.lines import format_own_copy
from .beneath import Beneath, said

CHUNK = 4 * 1024 * 1024  # a multiple of every sector and page size O_DIRECT asks buffers to be aligned to
ALIGN = 4096  # O_DIRECT's lengths: a multiple of the largest logical block size a disk has
O_DIRECT = getattr(os, "O_DIRECT", 0)
F_NOCACHE = getattr(fcntl, "F_NOCACHE", None)  # macOS
DONTNEED = getattr(os, "POSIX_FADV_DONTNEED", None)


class MountedCopyError(TengigError):
    """A copy through the mount failed: the message says where and why."""


def remote_path(mount: Path, remote: str) -> Beneath:
    """The share's ``remote`` (tengig's scratch name, backslashes: desk/instructions.REMOTE_RE) under ``mount``."""
    return Beneath(mount, tuple(remote.split("\\")))


def _open(place: Beneath, flags: int) -> tuple[int, bool, str]:
    """An fd of the regular file ``place`` with the cache kept out where the OS allows: (fd, unbuffered, how)."""
    if O_DIRECT:
        try:
            return place.open_file(flags | O_DIRECT), True, "unbuffered (O_DIRECT)"
        except OSError as exc:
            if exc.errno != errno.EINVAL:  # else the file system does not take O_DIRECT: cached, then purged
                raise
    fd = place.open_file(flags)
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


def _length(fd: int, direct: bool, left: int) -> int:
    """The next read's or write's length: a CHUNK, or what is left. An O_DIRECT file's last piece, when its
    length is not a multiple of a block (a size the NAS asked for), goes through the cache: O_DIRECT would
    refuse it (EINVAL)."""
    n = min(CHUNK, left)
    if direct and n % ALIGN:
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~O_DIRECT)
    return n


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


def put(source: Path, target: Beneath, size: int) -> str:
    """``source`` (size bytes) copied to the regular file ``target`` on the mount; the tengig-copy line."""
    try:
        with _aligned_chunk() as view, open(source, "rb", buffering=0) as src:
            started = time.monotonic()
            fd, unbuffered, how = _open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            direct = how.endswith("(O_DIRECT)")
            try:
                left = size
                while left > 0:
                    got = src.readinto(view[:_length(fd, direct, left)])
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
        raise MountedCopyError(f"cannot write {target}: {said(exc, target)}") from exc
    return format_own_copy("put", size, seconds, how)


def get(source: Beneath, size: int) -> str:
    """The first ``size`` bytes of the regular file ``source`` on the mount read into memory and dropped (no
    more: a file may go on); the tengig-copy line."""
    try:
        with _aligned_chunk() as view:
            started = time.monotonic()
            fd, unbuffered, how = _open(source, os.O_RDONLY)
            direct = how.endswith("(O_DIRECT)")
            try:
                if not unbuffered:
                    how += ", its cached pages dropped first" if _purged(fd) else " (this OS cannot drop them)"
                total = 0
                while total < size and (got := os.readv(fd, [view[:_length(fd, direct, size - total)]])):
                    total += got
            finally:
                os.close(fd)
            seconds = time.monotonic() - started
    except OSError as exc:
        raise MountedCopyError(f"cannot read {source}: {said(exc, source)}") from exc
    if total != size:
        raise MountedCopyError(f"{source} holds {total} bytes, the NAS asked for {size}")
    return format_own_copy("get", size, seconds, f"{how}, read into memory and discarded")
