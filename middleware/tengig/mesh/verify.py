"""Does an applied mesh work? Checked from each host, over each of its cables:

- the far end answers a ping on the link's address;
- a ping of MTU - 28 bytes with Don't Fragment set gets through (28 = IPv4 + ICMP headers): a jumbo
  MTU set on one end only shows up here, and nowhere else until big transfers stall;
- the peer's name resolves, on this host, to the far end of the direct cable (not the LAN address);
- then the n x (n-1) matrix: iperf3 from every host to every peer over their cable, each against the
  cable's goodput ceiling; a pair whose two directions differ by more than 10% is flagged.

Runs through the bench Hosts seam ("run argv on host X"), so the lab, plain Linux and later a TrueNAS
use one code path. Parsing is pure (`parse_ping`); the tools really run and their exit codes count.
"""
from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from ..bench.context import BenchContext
from ..bench.phases.network import LinkUnderTest, measure
from ..errors import TengigError
from ..ping import PingResult, parse_ping
from .models import MeshCable, MeshPlan

PING_TIMEOUT = 15
ASYMMETRY_LIMIT = 0.10  # two directions of one cable differing by more than this are flagged


class LinkCheck(BaseModel):
    cable: str = Field(description="Cable id.")
    host: str = Field(description="Host the checks ran on.")
    port: str = Field(description="Its port on this cable.")
    peer: str = Field(description="Host at the far end.")
    peer_address: str = Field(description="The far end's address on this cable.")
    ping_ok: bool = Field(description="The far end answered pings on the link.")
    rtt_ms: float | None = Field(description="Average round trip, ms.")
    df_size: int = Field(description="ICMP payload of the Don't-Fragment ping: MTU - 28, bytes.")
    df_ok: bool = Field(description="A full-MTU packet got through unfragmented (false: MTU mismatch on the cable).")
    name: str = Field(description="The peer name checked.")
    resolves_to: list[str] = Field(description="Addresses the name resolves to on this host (getent hosts).")
    name_ok: bool = Field(description="The name resolves to the far end of this cable.")
    problems: list[str] = Field(description="What failed, in words.")


class PairThroughput(BaseModel):
    cable: str = Field(description="Cable id.")
    sender: str = Field(description="Host sending (iperf3 client).")
    receiver: str = Field(description="Host receiving (iperf3 server).")
    goodput_bps: float = Field(description="Receiver-side TCP goodput, bits/s (measured).")
    ceiling_bps: float = Field(description="The cable's goodput ceiling at its speed and MTU, bits/s (estimated).")
    percent_of_ceiling: float = Field(description="goodput / ceiling x 100.")
    reaches_ceiling: bool = Field(description="At least min_percent of the ceiling.")
    received_bytes: int | None = Field(None, description="Bytes the receiver read in the test (with desktops "
                                       "that join; None where verify_mesh ran both ends itself).")
    witness: str | None = Field(None, description="With desktops that join: what checked the figure besides the "
                                "iperf3 client that printed it (the NAS's port counters and its own iperf3 "
                                "server, or the other desktop's iperf3 server).")


class AsymmetricPair(BaseModel):
    cable: str = Field(description="Cable id.")
    a_to_b_bps: float = Field(description="Goodput from the cable's a end to its b end, bits/s.")
    b_to_a_bps: float = Field(description="Goodput from b to a, bits/s.")
    difference_percent: float = Field(description="|a->b - b->a| / max x 100.")


class MeshVerifyResult(BaseModel):
    ok: bool = Field(description="Every link answers, passes DF pings, resolves, and (if measured) reaches min_percent of its ceiling.")
    links: list[LinkCheck] = Field(description="Per host and cable: ping, DF ping, name.")
    matrix: list[PairThroughput] = Field(description="n x (n-1) iperf3 results; empty when not measured.")
    asymmetric: list[AsymmetricPair] = Field(description="Cables whose two directions differ by more than 10%.")
    min_percent: float = Field(description="Share of the ceiling a link must reach, %.")
    problems: list[str] = Field(description="Every failure, in words.")
    unmeasured: list[str] = Field(default_factory=list, description="Pairs of the matrix not measured, each with "
                                  "why (with desktops that join: a cable to a peer that did not join).")


def check_links(ctx: BenchContext, plan: MeshPlan, host: str) -> list[LinkCheck]:
    out = []
    for cable in plan.cables_of(host):
        ctx.check_cancel()
        near, far = cable.end_of(host), cable.far_end_of(host)
        name = next(e.name for e in plan.host(host).hosts_entries if e.cable == cable.id)
        ping = _ping(ctx, host, near.port, far.address, ["-c", "3", "-i", "0.2", "-W", "1"])
        df_size = cable.mtu - 28
        df = _ping(ctx, host, near.port, far.address, ["-c", "2", "-i", "0.2", "-W", "1", "-M", "do", "-s", str(df_size)])
        resolved = _resolve(ctx, host, name)
        problems = []
        if not (ping and ping.received > 0):
            problems.append(f"{host} {near.port} -> {far.host} {far.address} ({cable.id}): no answer to ping")
        if not (df and df.received > 0):
            problems.append(f"{host} {near.port} -> {far.host} ({cable.id}): {cable.mtu}-byte packets with Don't Fragment "
                            f"do not get through (MTU mismatch on the cable? both ends must be {cable.mtu})")
        if far.address not in resolved:
            problems.append(f"on {host}, {name!r} resolves to {', '.join(resolved) or 'nothing'}, not {far.address} "
                            f"(the direct cable {cable.id})")
        out.append(LinkCheck(
            cable=cable.id, host=host, port=near.port, peer=far.host, peer_address=far.address,
            ping_ok=bool(ping and ping.received > 0), rtt_ms=ping.rtt_avg_ms if ping else None,
            df_size=df_size, df_ok=bool(df and df.received > 0), name=name, resolves_to=resolved,
            name_ok=far.address in resolved, problems=problems,
        ))
    return out


def _ping(ctx: BenchContext, host: str, port: str, address: str, opts: list[str]) -> PingResult | None:
    done = ctx.run(host, ["ping", "-n", "-I", port, *opts, address], timeout=PING_TIMEOUT, check=False, tool="ping")
    return parse_ping(done.stdout)


def _resolve(ctx: BenchContext, host: str, name: str) -> list[str]:
    done = ctx.run(host, ["getent", "ahostsv4", name], timeout=10, check=False, tool="getent")
    if done.returncode != 0:
        return []
    seen: list[str] = []
    for line in done.stdout.splitlines():
        addr = line.split()[0] if line.split() else ""
        if addr and addr not in seen:
            seen.append(addr)
    return seen


def pair_throughput(cable: MeshCable, sender: str, receiver: str, goodput_bps: float,
                    min_percent: float, *, received_bytes: int | None = None,
                    witness: str | None = None) -> PairThroughput:
    """One direction of a cable, measured, against the cable's goodput ceiling."""
    percent = 100 * goodput_bps / cable.goodput_bps
    return PairThroughput(cable=cable.id, sender=sender, receiver=receiver, goodput_bps=goodput_bps,
                          ceiling_bps=cable.goodput_bps, percent_of_ceiling=round(percent, 2),
                          reaches_ceiling=percent >= min_percent, received_bytes=received_bytes, witness=witness)


def measure_matrix(ctx: BenchContext, plan: MeshPlan, hosts: Sequence[str], *, seconds: int, omit: int,
                   min_percent: float) -> list[PairThroughput]:
    pairs = [(c, s, r) for c in plan.cables for s, r in ((c.a, c.b), (c.b, c.a)) if s.host in hosts and r.host in hosts]
    out = []
    for i, (cable, sender, receiver) in enumerate(pairs):
        ctx.check_cancel()
        ctx.report(100 * i / len(pairs), f"iperf3 {sender.host} -> {receiver.host} over {cable.id}")
        link = LinkUnderTest(name=cable.id, client=sender.host, server=receiver.host, server_address=receiver.address,
                             client_address=sender.address, line_rate_bps=cable.speed_bps, mtu=cable.mtu)
        m = measure(ctx, link, direction="write", streams=1, seconds=seconds, omit=omit)
        ctx.sample(phase=f"mesh {sender.host}->{receiver.host}", bytes_per_s=m.goodput_bps / 8)
        out.append(pair_throughput(cable, sender.host, receiver.host, m.goodput_bps, min_percent))
    ctx.report(100, "matrix measured")
    return out


def asymmetric_pairs(plan: MeshPlan, matrix: Sequence[PairThroughput]) -> list[AsymmetricPair]:
    out = []
    for cable in plan.cables:
        ab = next((m.goodput_bps for m in matrix if m.cable == cable.id and m.sender == cable.a.host), None)
        ba = next((m.goodput_bps for m in matrix if m.cable == cable.id and m.sender == cable.b.host), None)
        if ab is None or ba is None or max(ab, ba) <= 0:
            continue
        diff = abs(ab - ba) / max(ab, ba)
        if diff > ASYMMETRY_LIMIT:
            out.append(AsymmetricPair(cable=cable.id, a_to_b_bps=ab, b_to_a_bps=ba, difference_percent=round(100 * diff, 1)))
    return out


def verify_mesh(ctx: BenchContext, plan: MeshPlan, hosts: Sequence[str], *, measure_throughput: bool,
                seconds: int, min_percent: float, omit: int = 2) -> MeshVerifyResult:
    """Checks from every host in `hosts` (the ones tengig can run programs on), then the matrix."""
    unknown = [h for h in hosts if h not in {hp.name for hp in plan.hosts}]
    if unknown:
        raise TengigError(f"hosts not in the plan: {', '.join(unknown)}")
    links: list[LinkCheck] = []
    checks = ctx.part(0, 30 if measure_throughput else 100)
    for i, host in enumerate(hosts):
        checks.report(100 * i / len(hosts), f"{host}: ping, DF ping, names")
        links += check_links(checks, plan, host)
    matrix: list[PairThroughput] = []
    pings = all(link.ping_ok for link in links)
    if measure_throughput and pings:
        matrix = measure_matrix(ctx.part(30, 100), plan, hosts, seconds=seconds, omit=omit, min_percent=min_percent)
    not_measured = [] if pings or not measure_throughput else ["throughput not measured: some links do not answer pings"]
    return judged(ctx, plan, links, matrix, min_percent=min_percent, unmeasured=[], problems=not_measured)


def judged(ctx: BenchContext, plan: MeshPlan, links: list[LinkCheck], matrix: list[PairThroughput], *,
           min_percent: float, unmeasured: list[str], problems: Sequence[str] = ()) -> MeshVerifyResult:
    """The checks and the matrix as one result: every problem in words (``problems``: more of them),
    asymmetric cables flagged."""
    problems = [p for link in links for p in link.problems] + list(problems)
    for m in matrix:
        if not m.reaches_ceiling:
            problems.append(f"{m.sender} -> {m.receiver} over {m.cable}: {m.goodput_bps / 1e6:.1f} Mb/s is "
                            f"{m.percent_of_ceiling:.1f}% of the {m.ceiling_bps / 1e6:.1f} Mb/s ceiling (< {min_percent:g}%)")
    asym = asymmetric_pairs(plan, matrix)
    for a in asym:
        problems.append(f"{a.cable}: directions differ by {a.difference_percent}% "
                        f"({a.a_to_b_bps / 1e6:.1f} vs {a.b_to_a_bps / 1e6:.1f} Mb/s)")
    ctx.report(100, "verified" if not problems else f"{len(problems)} problem(s)")
    return MeshVerifyResult(ok=not problems, links=links, matrix=matrix, asymmetric=asym, min_percent=min_percent,
                            problems=problems, unmeasured=unmeasured)

