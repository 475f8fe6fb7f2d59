"""FreeBSD (TrueNAS CORE) facts: the ZFS ARC counters and the NIC inventory.

Everything is read through one seam, :class:`SysctlSource` (``values(prefix)``), with three sources:
the running kernel through the ``freebsd-sysctl`` package (:class:`LibrarySysctl`, FreeBSD only),
the text ``sysctl <prefix>`` prints (:class:`RecordedSysctl`, recorded output in the tests), and the
program run on a host, local or remote (:class:`ProgramSysctl`), which parses that same text. The
parsers (arcstats, ifconfig, %location, kernel log) are pure text -> model. Each port's byte counters
come from `netstat -i -b -n -W` (netstat.py), not from sysctl.
"""
from .arc import ARCSTATS, ArcStats, arc_sample, arc_stats, arcstats_counters
from .netstat import NETSTAT_BYTES_ARGV, parse_netstat_bytes
from .nics import freebsd_nics, nics_from_ifconfig, parse_ifconfig
from .sysctl import LibrarySysctl, ProgramSysctl, RecordedSysctl, SysctlSource, parse_sysctl_text

__all__ = [
    "ARCSTATS", "ArcStats", "LibrarySysctl", "NETSTAT_BYTES_ARGV", "ProgramSysctl", "RecordedSysctl", "SysctlSource", "arc_sample",
    "arc_stats", "arcstats_counters", "freebsd_nics", "nics_from_ifconfig", "parse_ifconfig", "parse_netstat_bytes",
    "parse_sysctl_text",
]
