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

Small files: a batch's time is held to the same window and port (small_batch_bounds); where the desktop's time
is impossible against them, the NAS shows its own bound and says why, never the desktop's word.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import ToolOutputError
from ...units import format_mb_s, format_rate, format_size
from ..parse.iperf3_parse import Iperf3Result, Iperf3Served, parse_iperf3_server
from ..parse.smallfiles_parse import OpTiming
from ..phases.nas_port import NasPort
from ..phases.smallfiles_results import percentiles

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
    said = f"{client} reports an SMB {direction} at {format_mb_s(bytes_per_s)}"
    if size / bytes_per_s > window * (1 + SMB_CLOCK_TOLERANCE):
        raise ToolOutputError(f"{said}: {format_size(size)} would take {size / bytes_per_s:.2f} s, longer than the "
                              f"{window:.2f} s from when it took the copy to its answer on the NAS's clock (the "
                              "run is not trusted)")
    limits = copy_rate_limits(seen, window, port, carrying)
    if limits:
        most, why = min(limits)
        if bytes_per_s > most * (1 + SMB_CLOCK_TOLERANCE):
            raise ToolOutputError(f"{said}, but the NAS's port {port.ifname} carried {format_size(seen)} in "
                                  f"{window:.2f} s on its own clock (from when it took the copy to its answer): "
                                  f"at most {why} (the run is not trusted)")


def copy_rate_limits(seen: int, window: float, port: NasPort,
                     carrying: float | None = None) -> list[tuple[float, str]]:
    """The most bytes/s a copy can have moved by what the NAS saw, each with why (none: it can tell nothing):
    its ``port`` carried ``seen`` bytes in the ``window`` less SMB_START_SLACK_S (or in ``carrying``, when
    shorter), and never more than its line rate."""
    copying = window - SMB_START_SLACK_S
    allowing = f"allowing {SMB_START_SLACK_S:g} s of it for the copy to start and answer"
    if carrying is not None and 0 < carrying < copying:
        copying = carrying
        allowing = f"in the {carrying:.2f} s its port was seen carrying the copy"
    limits = []
    if copying > 0:
        limits.append((seen / copying, f"{format_mb_s(seen / copying)} {allowing}"))
    if port.line_rate_bps:
        limits.append((port.line_rate_bps / 8, f"{format_mb_s(port.line_rate_bps / 8)}, its line rate"))
    return limits


def check_copy_on_port_timeline(client: str, direction: str, size: int, bytes_per_s: float,
                                busy: float | None, port: NasPort) -> None:
    """A desktop's SMB copy against ``busy``: the least time the NAS's ``port`` was seen carrying it
    (port_timeline.busy_seconds; None: the samples could not tell, and the window's checks stand alone)."""
    if busy is None:
        return
    said = size / bytes_per_s
    if said < busy * (1 - SMB_CLOCK_TOLERANCE):
        raise ToolOutputError(
            f"{client} reports an SMB {direction} of {format_size(size)} at {format_mb_s(bytes_per_s)} "
            f"({said:.2f} s), but the NAS's port {port.ifname} was still carrying it {busy:.2f} s after it "
            f"had begun, on the NAS's own clock: at most {format_mb_s(size / busy)} (the run is not trusted)")


# Small files (bench/join/joined_smallfiles.py): a batch's time is the desktop's clock between two marks, and the
# NAS's window for it (its own clock, from when the desktop took the batch to its answer) holds the batch. Its
# writes and reads moved their files' bytes across the NAS's port: no faster than the big copies may
# (copy_rate_limits). A delete is one SMB2 request per file at least, each with its header. A stat may come
# from the desktop's cache: only the window holds it. Where the desktop's time is impossible against these,
# the NAS shows its own bound instead, saying so, and leaves out times of single files it cannot trust.
SMB2_HEADER_BYTES = 64
# A file's time is read from when the desktop's lines arrived, and a shaper's burst lets one file through faster
# than its line's rate: honest times of files near the line's rate fall a little under the least a file takes
# (seen on the lab: 1 MiB files at 1 Gb/s). Under half of it, the times are not of what happened.
PER_FILE_SHARE = 0.5
# A batch of a few MiB near its line's rate: a shaper lets its burst through at once (the lab's tbf: 8 ms of its rate,
# up to 12% of 8 MiB at 1 Gb/s), so a batch may take that much less than its bytes at the line's rate.
SMALL_BATCH_TOLERANCE = 0.15


@dataclass(frozen=True)
class SmallBatchBounds:
    """What the NAS's own clock and port allow a batch of small files: at least ``least`` s (``least_why``), at
    most ``most`` s (the NAS's window for it), each file at least ``per_file`` s (``per_file_why``; 0: no bound)."""

    least: float
    least_why: str
    most: float
    per_file: float = 0.0
    per_file_why: str = ""


def small_batch_bounds(op: str, files: int, size: int, seen: int, window: float | None,
                       port: NasPort) -> SmallBatchBounds:
    """The bounds of a batch of ``files`` files of ``size`` bytes (``op``: write, stat, read, delete) whose NAS
    window was ``window`` s, in which its ``port`` carried ``seen`` bytes the way the files' bytes go."""
    if window is None or window <= 0:
        raise ToolOutputError(f"the NAS did not see the desktop take its small-file {op} and answer: no window of "
                              "its own to hold the batch's time to")
    least, least_why = max(0.0, window - SMB_START_SLACK_S), (
        f"the NAS's {window:.3g} s from when it took the batch to its answer, less {SMB_START_SLACK_S:g} s for its "
        "tool to start and answer")
    per_file, per_file_why = 0.0, ""
    line = port.line_rate_bps / 8 if port.line_rate_bps else None
    if op in ("write", "read"):
        moved = files * size
        limits = copy_rate_limits(seen, window, port)
        if limits:
            most, why = min(limits)
            least, least_why = moved / most, f"{format_size(moved)} at most {why} (its port {port.ifname})"
        if line:
            per_file, per_file_why = size / line, (f"{format_size(size)} at the {format_mb_s(line)} line rate of "
                                                   f"the NAS's port {port.ifname}")
    elif op == "delete" and line:
        per_file = SMB2_HEADER_BYTES / line
        per_file_why = (f"one SMB2 request of at least {SMB2_HEADER_BYTES} bytes at the {format_mb_s(line)} line "
                        f"rate of the NAS's port {port.ifname}")
        if files * per_file > least:
            least, least_why = files * per_file, f"{files} x {per_file_why}"
    return SmallBatchBounds(least=least, least_why=least_why, most=window, per_file=per_file,
                            per_file_why=per_file_why)


def small_batch_on_nas_clock(client: str, timing: OpTiming, bounds: SmallBatchBounds) -> tuple[OpTiming, str | None]:
    """``timing`` (the desktop's word) as the NAS holds it, and what it changed and why (None: nothing): a batch
    time outside ``bounds`` becomes the NAS's bound and its times of single files are left out; times of single
    files whose median is below what one file takes at least are left out."""
    said, batch = timing.seconds, f"{client} timed its small-file {timing.op} of {timing.files} file(s)"
    if said < bounds.least / (1 + SMALL_BATCH_TOLERANCE):
        seconds, why = bounds.least, f"at least {bounds.least:.3g} s: {bounds.least_why}"
    elif said > bounds.most * (1 + SMB_CLOCK_TOLERANCE):
        seconds, why = bounds.most, f"at most the NAS's {bounds.most:.3g} s from when it took the batch to its answer"
    else:
        seconds = None
    untimed = {"per_file": [], "opens": [], "closes": []}
    if seconds is not None:
        return timing.model_copy(update={"seconds": seconds, **untimed}), (
            f"{batch} at {said:.3g} s, but the batch took {why}, on the NAS's own clock: the NAS's {seconds:.3g} s is "
            "shown, and no times of single files")
    median = percentiles(timing.per_file)
    if median is not None and median.p50_ms / 1000 < bounds.per_file * PER_FILE_SHARE:
        return timing.model_copy(update=untimed), (
            f"{batch} at {median.p50_ms:.3g} ms per file or less for half of them, less than half of the "
            f"{1000 * bounds.per_file:.3g} ms each took at least ({bounds.per_file_why}): its times of single files "
            "are left out")
    return timing, None
