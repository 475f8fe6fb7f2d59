"""Linux's IPv4 routing table as /proc/net/route prints it (the main table, no iproute2 needed) -> the
interface a packet to an address leaves by: the longest matching prefix, then the lowest metric. Pure
text -> str. Addresses and masks are hex in the kernel's byte order (little-endian on x86 and ARM):

    Iface  Destination  Gateway   Flags  RefCnt  Use  Metric  Mask      MTU  Window  IRTT
    eth0   00000000     010200C0  0003   0       0    0       00000000  0    0       0
    eth0   000200C0     00000000  0001   0       0    0       00FFFFFF  0    0       0
"""
from __future__ import annotations

import ipaddress
import sys

RTF_UP = 0x1


def _address(field: str) -> int:
    """The kernel's hex of a network-order address read as a host-order number -> the address as a number."""
    return int.from_bytes(int(field, 16).to_bytes(4, "big"), sys.byteorder)


def parse_proc_route_interface(text: str, address: str) -> str | None:
    """The interface of the route /proc/net/route gives ``address`` (IPv4), or None."""
    target = int(ipaddress.IPv4Address(address))
    best: tuple[int, int, str] | None = None  # (prefix length, -metric, interface)
    for line in text.splitlines()[1:]:
        cells = line.split()
        if len(cells) < 8:
            continue
        try:
            iface, dest, flags, metric, mask = cells[0], _address(cells[1]), int(cells[3], 16), int(cells[6]), \
                _address(cells[7])
        except ValueError:
            continue
        if not flags & RTF_UP or target & mask != dest:
            continue
        rank = (bin(mask).count("1"), -metric, iface)
        if best is None or rank[:2] > best[:2]:
            best = rank
    return best[2] if best else None


def parse_proc_route_attached(text: str) -> list[ipaddress.IPv4Network]:
    """/proc/net/route's routes without a gateway (the kernel's connected subnets), the default left out."""
    out: list[ipaddress.IPv4Network] = []
    for line in text.splitlines()[1:]:
        cells = line.split()
        if len(cells) < 8:
            continue
        try:
            dest, gateway, flags, mask = (_address(cells[1]), _address(cells[2]), int(cells[3], 16),
                                          _address(cells[7]))
            subnet = ipaddress.IPv4Network((dest, bin(mask).count("1")))
        except ValueError:
            continue
        if flags & RTF_UP and gateway == 0 and mask and subnet not in out:
            out.append(subnet)
    return out
