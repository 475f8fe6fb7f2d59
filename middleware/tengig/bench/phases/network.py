"""Network benchmark: iperf3 per link, bound to the link's addresses, 1 stream and N streams, both
directions, each result next to the link's goodput ceiling (docs/physics.md §1).

Directions are named from the NAS's side as SMB users see them: "read" = the NAS sends (iperf3 -R
with the client on the user's host), "write" = the user's host sends to the NAS.
One iperf3 server per test and port (iperf3 serves one test at a time), stopped after the test.

Retransmits are the sending side's count: in a read the NAS's own iperf3 server's (its JSON), in a write the
client's; with the segments the sender sent (its bytes / the MSS of the port's MTU: iperf3 counts no segments),
so a lossy path reads as a share whatever the rate."""
from __future__ import annotations

import math
import subprocess
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ToolOutputError
from ...join_protocol.limits import BASE_PORT
from ...verdict.ceilings import tcp_goodput_bps, tcp_header_bytes
from ...verdict.models import PathRetransmits
from ..context import BenchContext
from ..parse.iperf3_parse import Iperf3Result, Iperf3Served, parse_iperf3_json, parse_iperf3_server

class LinkUnderTest(BaseModel):
    name: str = Field(description="Link name, e.g. desk-nas.")
    client: str = Field(description="The user's host (runs the iperf3 client).")
    server: str = Field(description="The NAS side (runs the iperf3 server).")
    server_address: str = Field(description="The server's address on this link (the test is bound to it).")
    client_address: str
    line_rate_bps: int | None = Field(description="Negotiated (or, in the lab, configured) line rate, bits/s.")
    mtu: int = 1500


class NetMeasurement(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    link: str
    direction: Literal["read", "write"]
    streams: int
    goodput_bps: float = Field(description="Receiver-side TCP goodput, bits/s (measured).")
    bytes: int = Field(description="Bytes the receiver got in the measured window.")
    seconds: float
    retransmits: int | None = Field(None, description="Segments the sending side's TCP sent again (a read: the NAS's "
                                    "iperf3 server; a write: the client); None: the sender's count is not known.")
    retransmits_by: str | None = Field(None, description="Who counted retransmits: the sender, e.g. \"nas's own "
                                       "iperf3 server\" (a read).")
    segments_sent: int | None = Field(None, description="Segments the sender sent in the measured window: its "
                                      "bytes / the MSS of the port's MTU (estimated; iperf3 counts none).")
    mss: int | None
    cpu_client_percent: float | None
    cpu_server_percent: float | None
    ceiling_bps: float | None = Field(description="Ethernet goodput ceiling of the line rate at this MTU, bits/s (estimated).")
    percent_of_ceiling: float | None
    raw: str = Field("", repr=False, exclude=True, description="iperf3 -J output as printed (kept with the run's raw "
                     "outputs; empty in a report read back from JSON).")

    @property
    def retransmit_share(self) -> float | None:
        """Retransmits as a share of the segments sent (None: either is unknown)."""
        if self.retransmits is None or not self.segments_sent:
            return None
        return self.retransmits / self.segments_sent

    def retransmits_text(self) -> str:
        """'retransmits 4,950 of 236,256 segments sent (2.10%, counted by nas's own iperf3 server, the sender)'."""
        if self.retransmits is None:
            return "retransmits unknown (the sender's count was not read)"
        share = self.retransmit_share
        said = [f"{100 * share:.2f}%"] if share is not None else []
        if self.retransmits_by:  # a run recorded before the counter was named has none: its count as it printed
            said.append(f"counted by {self.retransmits_by}, the sender")
        of = f" of {self.segments_sent:,} segments sent" if share is not None else ""
        return f"retransmits {self.retransmits:,}{of}" + (f" ({', '.join(said)})" if said else "")


def client_argv(link: LinkUnderTest, *, port: int, seconds: int, omit: int, streams: int, reverse: bool) -> list[str]:
    argv = ["iperf3", "-c", link.server_address, "-B", link.client_address, "-p", str(port),
            "-t", str(seconds), "-O", str(omit), "-P", str(streams), "-J"]
    return argv + (["-R"] if reverse else [])


def server_argv(link: LinkUnderTest, *, port: int) -> list[str]:
    return ["iperf3", "-s", "-1", "-J", "-B", link.server_address, "-p", str(port)]


def sender_count(link: LinkUnderTest, result: Iperf3Result, direction: str,
                 served: Iperf3Served | None) -> tuple[int | None, int | None, str | None]:
    """(retransmits, segments sent, whose count) from the side that sent: in a read the NAS's own server
    (``served``: none, none known: the client received, and prints only what the server handed it), in a write
    the client. Segments: the sender's bytes over the MSS of the port's MTU (IPv4, TCP and timestamps off it)."""
    mss = link.mtu - tcp_header_bytes()
    if direction == "write":
        return result.retransmits, math.ceil(result.sender_bytes / mss), f"{link.client}'s iperf3 client"
    if served is None or served.retransmits is None:
        return None, None, None
    return served.retransmits, math.ceil(served.bytes / mss), f"{link.server}'s own iperf3 server"


def to_measurement(link: LinkUnderTest, result: Iperf3Result, direction: str, raw: str,
                   served: Iperf3Served | None = None) -> NetMeasurement:
    """``served``: the NAS's own iperf3 server's report of the test (its count of a read's retransmits)."""
    ceiling = tcp_goodput_bps(link.line_rate_bps, link.mtu) if link.line_rate_bps else None
    retransmits, segments, by = sender_count(link, result, direction, served)
    return NetMeasurement(
        link=link.name, direction=direction, streams=result.streams, goodput_bps=result.receiver_bps,
        bytes=result.receiver_bytes, seconds=result.seconds, retransmits=retransmits, retransmits_by=by,
        segments_sent=segments, mss=result.mss,
        cpu_client_percent=result.cpu_local_percent, cpu_server_percent=result.cpu_remote_percent,
        ceiling_bps=ceiling, percent_of_ceiling=(100 * result.receiver_bps / ceiling) if ceiling else None,
        raw=raw,
    )


def path_retransmits(network: list[NetMeasurement]) -> list[PathRetransmits]:
    """What the verdict reads of the tests' retransmits: those whose sender's count and segments are known."""
    return [PathRetransmits(direction=m.direction, streams=m.streams, retransmits=m.retransmits,
                            segments=m.segments_sent, sender=m.retransmits_by or "the sender")
            for m in network if m.retransmits is not None and m.segments_sent]


def measure(
    ctx: BenchContext,
    link: LinkUnderTest,
    *,
    direction: Literal["read", "write"],
    streams: int = 1,
    seconds: int = 10,
    omit: int = 2,
    port: int = BASE_PORT,
) -> NetMeasurement:
    """One iperf3 test over one link. Raises ToolOutputError/CommandError; never returns a zero. A read's
    retransmits are what the server (the sender) printed of its test; unknown if it printed nothing readable."""
    server = ctx.spawn(link.server, server_argv(link, port=port), log_name=f"iperf3-{link.name}-{port}.log",
                       stdout_pipe=True)
    answered = False
    try:
        wait_listening(ctx, link.server, port, server, program="iperf3 server")
        done = ctx.run(
            link.client,
            client_argv(link, port=port, seconds=seconds, omit=omit, streams=streams, reverse=direction == "read"),
            timeout=seconds + omit + 30,
            check=False,  # iperf3 -J reports failures in its JSON; the parser raises on them
            tool="iperf3",
        )
        result = parse_iperf3_json(done.stdout)
        if done.returncode != 0:
            raise ToolOutputError(f"iperf3 exited with {done.returncode}: {done.stderr.strip()[:300]}")
        answered = True
    finally:
        report = server_report(server, wait=answered)  # after its one test it ends by itself
    try:
        served = parse_iperf3_server(report)
    except ToolOutputError:
        served = None  # the client's figures stand; only the read's retransmits stay unknown
    if served is not None and served.cookie != result.cookie:
        served = None  # not this test's report
    return to_measurement(link, result, direction, done.stdout, served=served)


SERVER_REPORT_WAIT_S = 10


def server_report(proc, *, wait: bool) -> str:
    """What a server started with ``stdout_pipe`` printed, once it has ended: waited for up to
    SERVER_REPORT_WAIT_S when it should end by itself (iperf3 -s -1 after its test), else stopped at once
    (TERM, then KILL), its output read either way."""
    if not wait and proc.poll() is None:
        proc.terminate()
    try:
        out, _ = proc.communicate(timeout=SERVER_REPORT_WAIT_S)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=SERVER_REPORT_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    return out or ""


def wait_listening(ctx: BenchContext, host: str, port: int, server, *, program: str, timeout: float = 10) -> None:
    """Until `server` (a process we started on `host`) listens on TCP `port`; raises if it exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise ToolOutputError(f"{program} on {host} exited with {server.returncode} before the test")
        if ctx.run(host, ["ss", "-Hltn", f"sport = :{port}"], timeout=5, record=False).stdout.strip():
            return
        time.sleep(0.05)
    raise ToolOutputError(f"{program} on {host} did not listen on port {port} within {timeout:g} s")
