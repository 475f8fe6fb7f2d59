"""Unpacking the vendored archives (TrueNAS's middleware, PowerShell) on any Python 3.11: with the tarfile
filter where the Python has one (3.11.4 and later), else after the same checks by hand (Debian 12's own
3.11.2 has none): no member named outside the folder, no link pointing out of it, no device file."""
from __future__ import annotations

import os
import tarfile
from pathlib import Path


class UnsafeArchive(ValueError):
    """A member would land outside the folder it is unpacked into."""


def _outside(path: str) -> bool:
    return os.path.isabs(path) or os.path.normpath(path).split(os.sep)[0] == ".."


def _check(tar: tarfile.TarFile, archive: str) -> None:
    for member in tar.getmembers():
        if _outside(member.name):
            raise UnsafeArchive(f"{archive}: member {member.name!r} is outside the folder; nothing unpacked")
        if member.isdev():
            raise UnsafeArchive(f"{archive}: member {member.name!r} is a device file; nothing unpacked")
        if member.issym() and _outside(os.path.join(os.path.dirname(member.name), member.linkname)):
            raise UnsafeArchive(f"{archive}: link {member.name!r} points outside the folder ({member.linkname!r})")
        if member.islnk() and _outside(member.linkname):
            raise UnsafeArchive(f"{archive}: hard link {member.name!r} names {member.linkname!r}, outside the folder")


def unpack_into(archive: Path, dest: Path, *, kind: str = "data") -> None:
    """``archive`` unpacked into ``dest``; ``kind``: tarfile's filter ("data", or "tar" to keep modes)."""
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter=kind)
        else:
            _check(tar, archive.name)
            tar.extractall(dest)
