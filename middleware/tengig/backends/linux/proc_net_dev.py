"""A port's byte counters read from /proc/net/dev, without starting a program: cheap enough to sample a
copy's progress every few milliseconds. /proc/net/dev shows the network namespace of the process that
reads it, so it is this machine's own ports (the NAS's, read by the NAS)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

PROC_NET_DEV = Path("/proc/net/dev")


def parse_proc_net_dev(text: str) -> dict[str, tuple[int, int]]:
    """/proc/net/dev -> {interface: (rx bytes, tx bytes)} (the first and ninth numbers of each line)."""
    found = {}
    for line in text.splitlines()[2:]:
        name, sep, numbers = line.partition(":")
        fields = numbers.split()
        if sep and len(fields) >= 9 and fields[0].isdigit() and fields[8].isdigit():
            found[name.strip()] = (int(fields[0]), int(fields[8]))
    return found


def counter_reader(ifname: str, path: Path = PROC_NET_DEV) -> Callable[[], tuple[int, int]] | None:
    """A function giving ``ifname``'s (rx, tx) bytes now, or None where this machine has no /proc/net/dev
    (FreeBSD) or no such port in it."""
    try:
        if ifname not in parse_proc_net_dev(path.read_text()):
            return None
    except OSError:
        return None

    def read() -> tuple[int, int]:
        return parse_proc_net_dev(path.read_text())[ifname]
    return read
