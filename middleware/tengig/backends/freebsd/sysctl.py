"""The freebsd-sysctl seam: ``values(prefix)`` -> {full name: value} for a sysctl node and everything
under it (or the one leaf the prefix names). Absent names give ``{}``, never an error: callers say
what they needed and did not get.

- :class:`LibrarySysctl` reads the running kernel through the PyPI package ``freebsd-sysctl``
  (``pip install 'tengig[freebsd]'``), imported only when used and only on FreeBSD.
- :class:`RecordedSysctl` reads the text ``sysctl <prefix>`` prints: one ``name: value`` line per leaf.
  Recorded output in the tests, and what :class:`ProgramSysctl` gets from running the program on a
  host (a remote TrueNAS CORE reached through a runner, or this one without the package).

Values are ``int`` when the text is a whole number, else ``str`` (``%location``, ``%desc``).
"""
from __future__ import annotations

import errno
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ...errors import TengigError

SysctlValues = dict[str, int | str]

# sysctl names: dotted words, '%' for the device tree's %desc/%location/%driver/%parent/%pnpinfo.
_NAME = re.compile(r"[A-Za-z0-9_%][A-Za-z0-9_.%-]*")
_INT = re.compile(r"^-?\d+$")


class SysctlSource(Protocol):
    def values(self, prefix: str) -> SysctlValues: ...


def _value(text: str) -> int | str:
    text = text.strip()
    return int(text) if _INT.match(text) else text


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def parse_sysctl_text(text: str) -> SysctlValues:
    """`sysctl NAME...` output -> {name: value}. Lines that are not `name: value` (the continuation
    lines of a multi-line string such as kern.conftxt, blank lines) are skipped."""
    out: SysctlValues = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and _NAME.fullmatch(name):
            out[name] = _value(value)
    return out


class RecordedSysctl:
    """A SysctlSource over the text `sysctl` printed (the program's own output format)."""

    def __init__(self, text: str):
        self._values = parse_sysctl_text(text)

    def values(self, prefix: str) -> SysctlValues:
        return {name: value for name, value in self._values.items() if _under(name, prefix)}


class ProgramSysctl:
    """A SysctlSource that runs `sysctl PREFIX` (argv, no shell) and parses what it prints. ``run``
    takes the argv and returns (exit code, stdout); `sysctl` exits non-zero for an unknown name,
    which is an absent value here."""

    def __init__(self, run: Callable[[list[str]], tuple[int, str]]):
        self._run = run

    def values(self, prefix: str) -> SysctlValues:
        code, stdout = self._run(["sysctl", prefix])
        return RecordedSysctl(stdout).values(prefix) if code == 0 else {}


def _plain(value: Any) -> int | str | None:
    """freebsd-sysctl's value as int or str; opaque/struct nodes (bytes) and arrays (lists) are not
    values this seam carries."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return _value(value)
    return None


class LibrarySysctl:
    """The running kernel's sysctl tree through ``freebsd_sysctl.Sysctl`` (freebsd-sysctl 0.0.7):
    ``Sysctl(name).value`` for a leaf, ``.children`` for every leaf under a node (a walk with
    sysctl's "next" OID, each child with ``.name``). ``sysctl_class`` replaces the import (tests).

    The package does not check sysctl(3)'s return codes: an unknown name resolves to an all-zero OID,
    which is taken here as "absent"."""

    def __init__(self, sysctl_class: Any | None = None):
        if sysctl_class is None:
            sysctl_class = _import_library()
        self._sysctl = sysctl_class

    def values(self, prefix: str) -> SysctlValues:
        node = self._sysctl(prefix)
        if not any(node.oid):
            return {}
        children = list(node.children)
        pairs: Iterable[tuple[str, Any]] = ((child.name, child.value) for child in children) if children else [
            (prefix, node.value)]
        out: SysctlValues = {}
        for name, raw in pairs:
            value = _plain(raw)
            if value is not None and _under(name, prefix):
                out[name] = value
        return out


def _import_library() -> Any:
    if not sys.platform.startswith("freebsd"):
        raise TengigError(
            f"LibrarySysctl reads this kernel's sysctl tree and works only on FreeBSD (this is {sys.platform}); "
            "for another host run `sysctl` there (ProgramSysctl) or parse its output (RecordedSysctl)",
            errno=errno.ENOTSUP)
    try:
        from freebsd_sysctl import Sysctl  # noqa: PLC0415 - FreeBSD only, optional extra
    except ImportError as exc:
        raise TengigError("the freebsd-sysctl package is not installed: pip install 'tengig[freebsd]'",
                          errno=errno.ENOTSUP) from exc
    return Sysctl

