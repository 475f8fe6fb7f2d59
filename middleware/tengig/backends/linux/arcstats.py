"""ZFS's ARC statistics on Linux, read in one place whichever ZFS is there (tested on recorded output,
tests/fixtures/arcstats/):

- OpenZFS's kstat file, PROC_ARCSTATS: a kstat header, then a 'name type data' table (parse_arcstats);
- zfs-fuse's kstat mount, ZFS_FUSE_KSTAT: one file per value (arcstats/c_max holds just '104857600'), read
  on this machine file by file (read_kstat_dir) or on the NAS with `grep -H "" FILE...` (parse_kstat_grep),
  both through parse_kstat_files.

The benchmark samples the NAS's counters with them (bench/phases/arc.py), the environment fingerprint this
machine's ARC size (results/environment.py); FreeBSD's come through sysctl (backends/freebsd/arc.py)."""
from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ...errors import ToolOutputError

PROC_ARCSTATS = "/proc/spl/kstat/zfs/arcstats"  # OpenZFS on Linux: one "name type data" table
ZFS_FUSE_KSTAT = "/zfs-kstat/zfs/arcstats"  # zfs-fuse's kstat mount: one file per value
_ARCSTATS_LINE_RE = re.compile(r"^(\w+)\s+(\d+)\s+(-?\d+)\s*$")
_WHOLE_RE = re.compile(r"-?\d+")


def parse_arcstats(text: str) -> dict[str, int]:
    """/proc/spl/kstat/zfs/arcstats (OpenZFS on Linux) -> {name: value}. Its first line is the
    kstat header, then 'name type data' and one 'c_max 4 4294967296' line per value."""
    stats = {m.group(1): int(m.group(3)) for m in map(_ARCSTATS_LINE_RE.match, text.splitlines()) if m}
    if not stats:
        raise ToolOutputError(f"arcstats has no 'name type data' lines: {text.strip()[:200] or '(empty)'}")
    return stats


def parse_kstat_files(files: Iterable[tuple[str, str]]) -> dict[str, int]:
    """zfs-fuse's kstat files, each (its path or name, its text) -> {name: value}; a file that does not hold
    one whole number is left out."""
    out = {}
    for path, text in files:
        if _WHOLE_RE.fullmatch(text.strip()):
            out[path.rsplit("/", 1)[-1]] = int(text)
    return out


def parse_kstat_grep(text: str) -> dict[str, int]:
    """`grep -H "" DIR/hits DIR/misses` (zfs-fuse's kstat files read on another host) -> {"hits": N, ...}."""
    return parse_kstat_files(line.rpartition(":")[::2] for line in text.splitlines() if ":" in line)


def read_kstat_dir(path: Path) -> dict[str, int]:
    """zfs-fuse's kstat directory on this machine -> {name: value}; ToolOutputError when it holds none."""
    stats = parse_kstat_files((entry.name, entry.read_text()) for entry in sorted(path.iterdir()) if entry.is_file())
    if not stats:
        raise ToolOutputError(f"{path} holds no numeric kstat files")
    return stats
