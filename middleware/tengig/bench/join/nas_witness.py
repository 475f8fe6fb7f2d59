"""A joined desktop's numbers against what the NAS itself saw (pure): its own iperf3 server's report of
the same test, and its port's bytes over its own clock for an SMB copy. A number that disagrees fails
the run, naming both figures: a desktop's word is never the only source of a number in a verdict.

iperf3: the client's JSON must be of the test the NAS's server served (the same cookie, streams and
direction), and its figure within ``iperf3_tolerance`` of the server's. In a write the client prints the
server's own count (iperf3 hands it over at the end); in a read the client counts what it received and
the server what it sent, each over its own window, whose edges (the end of the omitted warm-up, the end)
lie up to ~0.1 s apart with data in flight: measured on the lab up to 5.4% of a 1 s test with 16 streams
at 100 Mb/s, 0.1% of a 3 s one at 1 Gb/s.

SMB: the NAS's window of a copy runs from when the desktop took the instruction to when its whole
answer arrived (bench/join/session.py, the NAS's monotonic clock). The copy happened inside it, so:
- the copy cannot have taken longer than the window (a rate below size / window is not what happened);
- the NAS's port carried the copy's bytes within the window less what is not copying: the instruction's
  way to the desktop, its SMB client starting and logging on (smbclient and robocopy time only the
  transfer), the answer's way back, at most SMB_START_SLACK_S, or what the NAS's port timeline shows lay
  outside the copy's bytes (a desktop whose CPU is held starts its SMB client slowly); so the rate is at most
  the port's bytes / (window - SMB_START_SLACK_S), or / the most time the port can have carried them;
- and never above the port's line rate;
- where the NAS can sample its port's counter (bench/join/port_timeline.py), the copy took at least as long
  as the port was seen carrying the middle of its bytes: its rate is at most size / that time.
"""
from __future__ import annotations

from ...errors import ToolOutputError
from ...units import MB, format_rate, format_size
from ..parse.iperf3_parse import Iperf3Result, Iperf3Served, parse_iperf3_server
from ..phases.nas_port import NasPort

IPERF3_WRITE_TOLERANCE = 0.01  # the client's figure of a write is the server's own
IPERF3_EDGE_SECONDS = 0.1  # how far apart a read's two windows may close, at each of their two edges
IPERF3_MIN_TOLERANCE = 0.02
SMB_START_SLACK_S = 1.0
SMB_CLOCK_TOLERANCE = 0.01  # two clocks' rates, and the tools' rounding of the rate they print


def iperf3_tolerance(direction: str, seconds: float) -> float:
    """How far (a share) a desktop's iperf3 figure may be from the NAS's server's for a test of ``seconds``
    measured seconds: a read's two windows may differ by two edges' worth of the test's rate."""
    if direction == "write":
        return IPERF3_WRITE_TOLERANCE
    return max(IPERF3_MIN_TOLERANCE, 2 * IPERF3_EDGE_SECONDS / seconds)


def check_iperf3_served(client: str, direction: str, streams: int, seconds: float, result: Iperf3Result,
                        server_report: str, *, server: str = "the NAS's own iperf3 server") -> Iperf3Served:
    """``result`` (the desktop's iperf3 JSON) against ``server_report`` (what the NAS's own `iperf3 -s -1 -J`
    printed for the same test; ``server``: whose server it was, in the errors); raises ToolOutputError naming
    both when they disagree. Returns what the server saw (in a read, its count of retransmits is the sender's)."""
    try:
        served = parse_iperf3_server(server_report)
    except ToolOutputError as exc:
        raise ToolOutputError(f"{server} served no test ({exc.message}): {client} did not run "
                              "the iperf3 test it was asked for (the run is not trusted)") from exc
    if result.cookie != served.cookie:
        raise ToolOutputError(f"{client}'s iperf3 output is not of the test {server} served "
                              f"(cookie {result.cookie!r}, the server's {served.cookie!r}; the run is not trusted)")
    reverse = direction == "read"
    if served.streams != streams or served.reverse != reverse:
        raise ToolOutputError(f"{server} served {client} a test of {served.streams} stream(s), "
                              f"reverse={served.reverse}; the NAS asked for {streams}, reverse={reverse}")
    tolerance = iperf3_tolerance(direction, seconds)
    rates = (result.receiver_bps, 8 * result.receiver_bytes / result.seconds)
    if result.receiver_bytes > served.bytes * (1 + tolerance) or any(
            abs(rate - served.bps) > tolerance * served.bps for rate in rates):
        raise ToolOutputError(
            f"{client} reports {format_size(result.receiver_bytes)} in iperf3 {direction} {streams} stream(s) over "
            f"{result.seconds:.3g} s at {format_rate(result.receiver_bps)}, but {server} "
            f"{'sent' if reverse else 'received'} {format_size(served.bytes)} in {served.seconds:.3g} s "
            f"({format_rate(served.bps)}) in that test: more than {tolerance:.0%} apart (the run is not trusted)")
    return served


def check_copy_on_nas_clock(client: str, direction: str, size: int, bytes_per_s: float, seen: int,
                            window: float | None, port: NasPort, carrying: float | None = None) -> None:
    """A desktop's SMB copy of ``size`` bytes at ``bytes_per_s`` (what its tool printed) against the NAS's
    ``window`` for it (s, its own clock) and the ``seen`` bytes its ``port`` carried meanwhile; ``carrying``:
    the most time the port can have taken to carry them (port_timeline.carrying_seconds), when shorter than
    the window less SMB_START_SLACK_S."""
    if window is None or window <= 0:
        raise ToolOutputError(f"the NAS did not see {client} take its SMB {direction} and answer: no window "
                              "of its own to check the copy against")
    said = f"{client} reports an SMB {direction} at {bytes_per_s / MB:.1f} MB/s"
    if size / bytes_per_s > window * (1 + SMB_CLOCK_TOLERANCE):
        raise ToolOutputError(f"{said}: {format_size(size)} would take {size / bytes_per_s:.2f} s, longer than the "
                              f"{window:.2f} s from when it took the copy to its answer on the NAS's clock (the "
                              "run is not trusted)")
    copying = window - SMB_START_SLACK_S
    allowing = f"allowing {SMB_START_SLACK_S:g} s of it for the copy to start and answer"
    if carrying is not None and 0 < carrying < copying:
        copying = carrying
        allowing = f"in the {carrying:.2f} s its port was seen carrying the copy"
    limits = []
    if copying > 0:
        limits.append((seen / copying, f"{seen / copying / MB:.1f} MB/s {allowing}"))
    if port.line_rate_bps:
        limits.append((port.line_rate_bps / 8, f"{port.line_rate_bps / 8 / MB:.1f} MB/s, its line rate"))
    if limits:
        most, why = min(limits)
        if bytes_per_s > most * (1 + SMB_CLOCK_TOLERANCE):
            raise ToolOutputError(f"{said}, but the NAS's port {port.ifname} carried {format_size(seen)} in "
                                  f"{window:.2f} s on its own clock (from when it took the copy to its answer): "
                                  f"at most {why} (the run is not trusted)")


def check_copy_on_port_timeline(client: str, direction: str, size: int, bytes_per_s: float,
                                busy: float | None, port: NasPort) -> None:
    """A desktop's SMB copy against ``busy``: the least time the NAS's ``port`` was seen carrying it
    (port_timeline.busy_seconds; None: the samples could not tell, and the window's checks stand alone)."""
    if busy is None:
        return
    said = size / bytes_per_s
    if said < busy * (1 - SMB_CLOCK_TOLERANCE):
        raise ToolOutputError(
            f"{client} reports an SMB {direction} of {format_size(size)} at {bytes_per_s / MB:.1f} MB/s "
            f"({said:.2f} s), but the NAS's port {port.ifname} was still carrying it {busy:.2f} s after it "
            f"had begun, on the NAS's own clock: at most {size / busy / MB:.1f} MB/s (the run is not trusted)")
