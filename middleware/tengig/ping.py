"""iputils ping, run and read: its summary parsed (pure, `parse_ping`), and `ping_once`, the probe a
staged network change (mesh or LAGG, Linux or TrueNAS) waits on before it is kept."""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from .runner import Completed

_PING_SUMMARY = re.compile(r"(\d+) packets transmitted, (\d+) (?:packets )?received")
_PING_RTT = re.compile(r"= [\d.]+/([\d.]+)/[\d.]+/")


class PingResult(BaseModel):
    sent: int
    received: int
    rtt_avg_ms: float | None


def parse_ping(text: str) -> PingResult | None:
    """iputils ping's summary -> counts and average RTT; None when there is no summary line."""
    m = _PING_SUMMARY.search(text)
    if not m:
        return None
    rtt = _PING_RTT.search(text)
    return PingResult(sent=int(m.group(1)), received=int(m.group(2)), rtt_avg_ms=float(rtt.group(1)) if rtt else None)


IPV4_ICMP_HEADERS = 28  # 20 bytes IPv4 + 8 bytes ICMP: a ping of MTU-28 bytes payload fills one frame


def ping_once(run: Callable[[Sequence[str]], Completed], port: str, address: str, *,
              mtu: int | None = None) -> tuple[bool, str]:
    """One 1-second ping out of `port` (answered?, RTT or 'no reply'): the probe a staged change waits on.
    ``mtu``: a don't-fragment ping that fills a frame of that many bytes (ping -M do -s MTU-28)."""
    sized = ["-M", "do", "-s", str(mtu - IPV4_ICMP_HEADERS)] if mtu else []
    done = run(["ping", "-n", "-c", "1", "-W", "1", *sized, "-I", port, address])
    ping = parse_ping(done.stdout)
    ok = done.returncode == 0 and ping is not None and ping.received > 0
    return ok, f"{ping.rtt_avg_ms} ms" if ok and ping.rtt_avg_ms is not None else "no reply"
