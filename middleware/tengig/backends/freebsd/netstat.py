"""Each port's byte counters on FreeBSD: `netstat -i -b -n -W` (netstat(1); FreeBSD has no iproute2).

netstat prints one ``<Link#N>`` row per interface (the interface's own counters) and one row per address
(an address's share, with "-" where the family keeps no such counter); only the ``<Link#N>`` rows are read.
Its columns are found by the header's names, counted from the right: the Address column is empty for an
interface without a link-layer address (a tunnel), and -d adds a Drop column after Coll. A name ending in
"*" is an interface that is down (the name is without it). -W keeps long names whole.
"""
from __future__ import annotations

from ...errors import ToolOutputError

NETSTAT_BYTES_ARGV = ("netstat", "-i", "-b", "-n", "-W")


def parse_netstat_bytes(text: str) -> dict[str, tuple[int, int]]:
    """`netstat -i -b -n` output -> {interface: (bytes received, bytes sent)}, from its <Link#N> rows."""
    lines = text.splitlines()
    header = next((line.split() for line in lines if line.split()[:1] == ["Name"]), None)
    if header is None or "Address" not in header:
        raise ToolOutputError(f"`netstat -i -b -n` printed no 'Name ... Address' header: {text.strip()[:200]!r}")
    if "Ibytes" not in header or "Obytes" not in header:
        raise ToolOutputError("`netstat -i` printed no Ibytes/Obytes columns (was -b given?)")
    counted = header[header.index("Address") + 1:]  # every column right of the address, each always printed
    ibytes, obytes = counted.index("Ibytes") - len(counted), counted.index("Obytes") - len(counted)
    out: dict[str, tuple[int, int]] = {}
    for line in lines:
        parts = line.split()
        if len(parts) < 3 + len(counted) or not parts[2].startswith("<Link#"):
            continue
        try:
            out[parts[0].rstrip("*")] = (int(parts[ibytes]), int(parts[obytes]))
        except ValueError as exc:
            raise ToolOutputError(f"`netstat -i -b -n` row without byte counts: {line.strip()!r}") from exc
    if not out:
        raise ToolOutputError("`netstat -i -b -n` printed no <Link#N> row: no interface's byte counters")
    return out
