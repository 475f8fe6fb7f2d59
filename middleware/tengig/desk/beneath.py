"""Paths beneath a directory this desktop was given (--mount DIR, --disk DIR), opened as tengig means them.

A share's content is the NAS's and its other users', and a --disk directory may be writable by other local
users: a symbolic link there could send the desktop's writes to a file of its own (tengig may run as root), a
FIFO would hang it on open, a device (or a link to /dev/zero) would never end. So the given directory is
opened once (followed: the person chose it) and everything beneath it is opened relative to its parent's
descriptor with O_NOFOLLOW (a link is refused, never followed): directories with O_DIRECTORY, files with
O_NONBLOCK (a FIFO cannot hang the open) and checked with fstat to be regular files before a byte moves.
Anything else is refused naming what it is (an OSError, as the callers report any other)."""
from __future__ import annotations

import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# Added to every open beneath the root: no link followed, no FIFO waited on, no terminal taken.
NOFOLLOW = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW
PRIVATE_MODE = 0o700  # a directory of tengig's own in --disk: no other user lists, adds or swaps its files

_KINDS = {stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory",
          stat.S_IFREG: "a regular file"}


def kind(mode: int) -> str:
    """What a file of ``st_mode`` is, in words."""
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def refused(shown: Path | str, mode: int, wanted: str) -> OSError:
    """The error for ``shown`` (of ``mode``) where tengig wanted a ``wanted``; its strerror names both."""
    what = kind(mode)
    link = ": tengig follows no link beneath the directory it was given" if stat.S_ISLNK(mode) else \
        f", not {wanted}: tengig opens only regular files and directories there"
    return OSError(errno.ELOOP if stat.S_ISLNK(mode) else errno.EPERM, f"is {what}{link}", str(shown))


def said(exc: OSError, place: Beneath | Path) -> str:
    """What went wrong, naming the path it concerns when that is not ``place`` (a directory on the way)."""
    where = f"{exc.filename}: " if exc.filename and str(exc.filename) != str(place) else ""
    return where + (exc.strerror or str(exc))


def _name(part: str) -> str:
    if part in ("", ".", "..") or "/" in part or "\0" in part:
        raise OSError(errno.EINVAL, "is not one plain name", part)  # tengig's own names never are
    return part


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def why_not(dir_fd: int, name: str, shown: Path, wanted: str, exc: OSError) -> OSError:
    """The refusal naming what ``name`` is when an open failed because of it (ELOOP: a link; ENOTDIR; ENXIO: a
    FIFO without a reader), else ``exc`` with the path shown."""
    found = _lstat(dir_fd, name)
    if found is not None and not (stat.S_ISDIR(found.st_mode) if wanted == "a directory"
                                  else stat.S_ISREG(found.st_mode)):
        return refused(shown, found.st_mode, wanted)
    return OSError(exc.errno, exc.strerror, str(shown))


def open_dir_at(dir_fd: int, name: str, shown: Path) -> int:
    """The directory ``name`` in ``dir_fd``, never through a link (refused, naming what it is)."""
    try:
        return os.open(_name(name), DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise why_not(dir_fd, name, shown, "a directory", exc) from exc


def regular(fd: int, shown: Path) -> int:
    """``fd`` when it is a regular file (then in blocking mode), else closed and refused."""
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise refused(shown, mode, "a regular file")
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return fd


def open_file_at(dir_fd: int, name: str, flags: int, shown: Path, mode: int = 0o644) -> int:
    """The regular file ``name`` in ``dir_fd`` opened with ``flags``: something else there is refused before
    it is opened (no device is opened at all), and checked again once open (it may have been swapped)."""
    found = _lstat(dir_fd, _name(name))
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise refused(shown, found.st_mode, "a regular file")
    try:
        fd = os.open(name, flags | NOFOLLOW, mode, dir_fd=dir_fd)
    except OSError as exc:
        raise why_not(dir_fd, name, shown, "a regular file", exc) from exc
    return regular(fd, shown)


@dataclass(frozen=True)
class Beneath:
    """A path beneath a directory the desktop was given: ``root`` (followed) and the names under it (never)."""

    root: Path
    parts: tuple[str, ...]

    @property
    def path(self) -> Path:
        return self.root.joinpath(*self.parts)

    @property
    def name(self) -> str:
        return self.parts[-1]

    def __str__(self) -> str:
        return str(self.path)

    @property
    def parent(self) -> Beneath:
        return Beneath(self.root, self.parts[:-1])

    def child(self, name: str) -> Beneath:
        return Beneath(self.root, (*self.parts, name))

    @contextmanager
    def parent_fd(self) -> Iterator[int]:
        """The descriptor of the directory holding ``name``, reached one component at a time."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for i, part in enumerate(self.parts[:-1]):
                inner = open_dir_at(fd, part, self.root.joinpath(*self.parts[:i + 1]))
                os.close(fd)
                fd = inner
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def dir_fd(self) -> Iterator[int]:
        """This path's directory's descriptor (a link or anything but a directory refused)."""
        if not self.parts:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        else:
            with self.parent_fd() as parent:
                fd = open_dir_at(parent, self.name, self.path)
        try:
            yield fd
        finally:
            os.close(fd)

    def make_dir(self) -> bool:
        """This directory made where it is not there yet (True: made here); whatever is there must be a
        directory itself, not a link to one."""
        with self.parent_fd() as parent:
            try:
                os.mkdir(_name(self.name), dir_fd=parent)
                made = True
            except FileExistsError:
                made = False
            os.close(open_dir_at(parent, self.name, self.path))
        return made

    def open_file(self, flags: int, mode: int = 0o644) -> int:
        """This regular file opened with ``flags`` (open_file_at)."""
        with self.parent_fd() as parent:
            return open_file_at(parent, self.name, flags, self.path, mode)


def private_dir(root: Path, prefix: str) -> Beneath:
    """A fresh directory of tengig's own in ``root`` (mode 0700, made exclusively: never one that was there),
    as mkdtemp makes it but relative to ``root``'s descriptor."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for _ in range(100):
            name = prefix + secrets.token_hex(6)
            try:
                os.mkdir(name, PRIVATE_MODE, dir_fd=fd)
            except FileExistsError:
                continue
            return Beneath(root, (name,))
        raise OSError(errno.EEXIST, "no fresh name for tengig's directory (100 tried)", str(root))
    finally:
        os.close(fd)


def remove_private(place: Beneath) -> list[str]:
    """``place`` (a private_dir) and what tengig wrote in it removed, links inside removed, never followed;
    what could not be, each as "path: why"."""
    left: list[str] = []
    try:
        with place.parent_fd() as parent:
            try:
                inner = open_dir_at(parent, place.name, place.path)
            except FileNotFoundError:
                return []
            try:
                for name in os.listdir(inner):
                    try:
                        os.unlink(name, dir_fd=inner)
                    except OSError as exc:
                        left.append(f"{place.path / name}: {exc.strerror or exc}")
            finally:
                os.close(inner)
            os.rmdir(place.name, dir_fd=parent)
    except OSError as exc:
        left.append(f"{exc.filename or place.path}: {exc.strerror or exc}")
    return left


def shared_why(directory: Path) -> str | None:
    """Why another local user could swap tengig's files in ``directory`` (None: they cannot): it is writable by
    every user without the sticky bit (/tmp's: only an entry's owner renames or removes it), or it belongs to
    another user than this one and root."""
    info = os.stat(directory)
    if info.st_mode & stat.S_IWOTH and not info.st_mode & stat.S_ISVTX:
        return f"every user can write to it (mode {stat.S_IMODE(info.st_mode):04o}, no sticky bit)"
    if info.st_uid not in (0, os.geteuid()):
        return f"it belongs to another user (uid {info.st_uid})"
    return None
