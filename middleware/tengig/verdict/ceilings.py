"""Physical ceilings (docs/physics.md §1): what TCP payload can move over an Ethernet link.

Per frame on the wire: preamble+SFD 8 + header 14 + FCS 4 + inter-frame gap 12 = 38 bytes.
Inside the MTU: IPv4 20 + TCP 20 + timestamps 12 = 52 bytes (IPv6: 72; no timestamps: 12 fewer).
"""
from __future__ import annotations

ETHERNET_WIRE_OVERHEAD = 38  # preamble+SFD 8, MAC header 14, FCS 4, inter-frame gap 12
ETHERNET_L2_OVERHEAD = 14  # what tc/tbf counts beyond the IP packet (header only)
TCP_TIMESTAMPS = 12


def tcp_header_bytes(*, ipv6: bool = False, timestamps: bool = True) -> int:
    return (40 if ipv6 else 20) + 20 + (TCP_TIMESTAMPS if timestamps else 0)


def tcp_goodput_bps(line_rate_bps: float, mtu: int = 1500, *, ipv6: bool = False, timestamps: bool = True) -> float:
    """TCP payload bits/s a link of line_rate_bps can carry: rate x (MTU - headers) / (MTU + 38)."""
    if line_rate_bps <= 0:
        raise ValueError("line rate must be positive")
    if not 576 <= mtu <= 65535:
        raise ValueError(f"MTU {mtu} is outside 576..65535")
    return line_rate_bps * (mtu - tcp_header_bytes(ipv6=ipv6, timestamps=timestamps)) / (mtu + ETHERNET_WIRE_OVERHEAD)


def tbf_rate_for_ethernet(line_rate_bps: float, mtu: int = 1500) -> float:
    """The tbf rate that makes a shaped veth carry what real Ethernet carries (docs/lab.md §3).

    tbf counts frame bytes without preamble, FCS and gap (MTU + 14); the wire spends MTU + 38.
    Scaling the rate by (MTU + 14) / (MTU + 38) gives the same goodput: 1g -> 984.4 Mbit at 1500.
    """
    return line_rate_bps * (mtu + ETHERNET_L2_OVERHEAD) / (mtu + ETHERNET_WIRE_OVERHEAD)


def ethernet_rate_of_tbf(tbf_rate_bps: float, mtu: int = 1500) -> float:
    """The Ethernet line rate a tbf shaper stands for: the inverse of ``tbf_rate_for_ethernet``
    (984.4 Mbit/s at MTU 1500 -> 1 Gb/s), rounded to whole Mb/s as line rates are named."""
    return round(tbf_rate_bps * (mtu + ETHERNET_WIRE_OVERHEAD) / (mtu + ETHERNET_L2_OVERHEAD) / 1e6) * 1e6
