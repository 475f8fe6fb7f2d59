"""Advice rules: what to change so SMB beats the target, each with a stable id the UI and tests key on.

Rules are pure functions of the ceilings and the facts; each returns at most one Advice and says its
numbers with units (MB/s = 10^6 bytes/s for throughput, Gb/s and Mb/s for links, bytes for MTUs), so
the advice can be checked against the table next to it. This module also holds the chain arithmetic
judge.py shares (best ceiling per component, the bound SMB lives under), so the verdict's bottleneck
and the advice can never disagree about what "far below" means.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

from ..units import format_rate, format_size
from ..units import format_mb_s as mb_s  # the one rate formatter, under the name the rules use
from .ceilings import tcp_goodput_bps
from .loss import loss_advice
from .members import dragging_text
from .dataset_costs import dataset_costs
from .models import Advice, Ceiling, Component, DirectionVerdict, Direction, Facts, Target
from .small_files import SMBD_BUSY_PERCENT, ROUND_TRIPS_PER_FILE, files_per_s, latency_bound, round_trip_share, smbd_busy

CHAIN_ORDER: tuple[Component, ...] = ("pool", "link", "network", "smb")
DIRECTIONS: tuple[Direction, ...] = ("read", "write")
# SMB below this share of what pool, link and network allow is SMB's own doing (smbd, crypto, client).
SMB_FAR_BELOW_RATIO = 0.70
# smbd's cgroup throttled in this share of its scheduling periods: its CPU limit held it back.
SMBD_THROTTLED_PERCENT = 20.0
# SMB above a ceiling by more than this (beyond both spreads): two tools' clocks, rounding and short windows
# cannot explain it, so the ceiling was not measured as SMB used it and is no bound. The quick preset's fio runs
# last a second or two: a pool held to 50 MB/s by a blkio throttle read 2-3% under it in them, while SMB's
# copies of the same pool ran at the throttle (the lab's slow pool), so 1% named SMB for the pool's doing.
OVERRUN_TOLERANCE = 0.05
# A measured network at or above this share of the link's goodput is the link itself at work.
NETWORK_AT_LINK_RATIO = 0.90
# The desktop's SMB client this busy (share of the CPU it may use: one core, one copying thread, or less where the
# desktop's CPUs or its cgroup allow less): its CPU is the limit.
CLIENT_CPU_BUSY_SHARE = 0.85
# One TCP stream below this share of N streams: a single SMB connection will not fill the link either.
SINGLE_STREAM_LOW_RATIO = 0.70
# A link upgrade is only suggested if its goodput beats the target by this much: SMB seldom hits 100%.
UPGRADE_HEADROOM = 1.10
UPGRADE_SPEEDS_BPS = (1e9, 2.5e9, 5e9, 10e9, 25e9, 40e9, 50e9, 100e9, 200e9, 400e9)
MULTICHANNEL_NIC_BPS = 25e9
LAGG_PER_FLOW = {"LACP", "LOADBALANCE", "FAILOVER"}
DEFAULT_MTU = 1500
# The pool at its best thread count this many times its one-thread figure: one client's copy (one stream of
# requests) gets the smaller one.
NEEDS_THREADS_RATIO = 1.25

# Each direction's ceilings; a rule reads them and the facts and returns its advice or None.
ByDirection = dict[Direction, list[Ceiling]]
Rule = Callable[[Target, ByDirection, Facts], Advice | None]


# ---- shared chain arithmetic (judge.py uses these too) ----

def ceiling_text(ceiling: Ceiling) -> str:
    """'117.7 MB/s (estimated)': estimated numbers are always labelled, measured ones speak for themselves."""
    return mb_s(ceiling.bytes_per_s) + (" (estimated)" if ceiling.provenance == "estimated" else "")


def best(ceilings: Iterable[Ceiling], component: Component) -> Ceiling | None:
    """The component's ceiling: a measurement beats an estimate; among equals, the highest (it is a ceiling)."""
    mine = [c for c in ceilings if c.component == component]
    measured = [c for c in mine if c.provenance == "measured"]
    pool = measured or mine
    return max(pool, key=lambda c: c.bytes_per_s) if pool else None


def measured_smb(ceilings: Iterable[Ceiling]) -> Ceiling | None:
    """Only a measured SMB figure may beat or lose to a target: an estimate of SMB proves nothing."""
    return best([c for c in ceilings if c.provenance == "measured"], "smb")


def overruns(smb: Ceiling | None, ceiling: Ceiling) -> bool:
    """SMB passed more than the measured ``ceiling`` through it in every run, beyond both spreads and
    OVERRUN_TOLERANCE (two tools' clocks and rounding): then the ceiling is no bound (verdict/overrun.py says why).
    An estimate is physics, not a measurement that can miss: the NAS refuses an SMB figure above its port's line
    rate (bench/join/nas_witness.py)."""
    return (smb is not None and ceiling.provenance == "measured"
            and smb.spread[0] > ceiling.spread[1] * (1 + OVERRUN_TOLERANCE))


def _bounds(ceilings: Iterable[Ceiling]) -> dict[Component, Ceiling]:
    """Pool, link and network, each its best ceiling, less those SMB overruns."""
    ceilings = list(ceilings)
    smb = measured_smb(ceilings)
    return {comp: c for comp in ("pool", "link", "network")
            if (c := best(ceilings, comp)) is not None and not overruns(smb, c)}


def overrun_ceilings(ceilings: Iterable[Ceiling]) -> list[Ceiling]:
    """The best ceilings of pool, link and network that SMB overruns, in the chain's order."""
    ceilings = list(ceilings)
    smb = measured_smb(ceilings)
    return [c for comp in ("pool", "link", "network") if (c := best(ceilings, comp)) is not None and overruns(smb, c)]


def chain_bound(ceilings: Iterable[Ceiling]) -> Ceiling | None:
    """The lowest of pool, link and network that SMB did not overrun: what SMB could reach if SMB itself cost
    nothing."""
    found = list(_bounds(ceilings).values())
    return min(found, key=lambda c: c.bytes_per_s) if found else None


def smb_far_below(ceilings: Sequence[Ceiling]) -> tuple[Ceiling, Ceiling] | None:
    """(smb, bound) when measured SMB is under SMB_FAR_BELOW_RATIO of the bound, else None."""
    smb, bound = measured_smb(ceilings), chain_bound(ceilings)
    if smb is None or bound is None or bound.bytes_per_s <= 0:
        return None
    return (smb, bound) if smb.bytes_per_s < SMB_FAR_BELOW_RATIO * bound.bytes_per_s else None


def bottleneck(ceilings: Sequence[Ceiling]) -> Component | None:
    """The component bounding SMB in one direction's ceilings (None when pool, link and network are all unknown)."""
    if chain_bound(ceilings) is None:
        return None
    if smb_far_below(ceilings) is not None:
        return "smb"
    candidates = _bounds(ceilings)
    link, net = candidates.get("link"), candidates.get("network")
    if link is not None and net is not None and net.bytes_per_s >= NETWORK_AT_LINK_RATIO * link.bytes_per_s:
        del candidates["network"]
    return min(candidates, key=lambda comp: (candidates[comp].bytes_per_s, CHAIN_ORDER.index(comp)))


def client_cpu_bound(facts: Facts) -> tuple[float, float] | None:
    """(cores used, cores it may use) when the desktop's SMB client used CLIENT_CPU_BUSY_SHARE or more of what
    it may use: one core (a copy is one thread), or the desktop's CPUs' worth when lower (a cgroup's limit)."""
    used = facts.client_cpu_cores
    if used is None:
        return None
    allowed = min(1.0, facts.client_cpus) if facts.client_cpus is not None else 1.0
    return (used, allowed) if used >= CLIENT_CPU_BUSY_SHARE * allowed else None


def client_cpu_text(facts: Facts, smb_bytes_per_s: float | None = None) -> str | None:
    """"desk's SMB client used 0.98 of a core for the whole copy: the desktop's CPU holds SMB back at 61.2 MB/s"
    (None: it did not use what it may)."""
    bound = client_cpu_bound(facts)
    if bound is None:
        return None
    used, allowed = bound
    who = f"{facts.client_name}'s" if facts.client_name else "the desktop's"
    may = f" (of the {allowed:.2g} it may use: its CPUs or its cgroup's limit)" if allowed < 1.0 else ""
    at = f" at {mb_s(smb_bytes_per_s)}" if smb_bytes_per_s is not None else ""
    return f"{who} SMB client used {used:.2f} of a core for the whole copy{may}: the desktop's CPU holds SMB back{at}"


def smb_cause(facts: Facts, smb_bytes_per_s: float | None = None) -> str | None:
    """What held SMB back, from what the NAS measured of smbd during the copies and what the desktop measured of
    its SMB client (None: nothing measured points anywhere, and nothing about either was measured).
    ``smb_bytes_per_s``: the SMB figure it holds back, said with the desktop's CPU."""
    throttled, limit = facts.smbd_throttled_percent, facts.smbd_cpu_limit_cores
    if throttled is not None and throttled >= SMBD_THROTTLED_PERCENT:
        allows = f"{limit:.2g} of a core" if limit is not None else "a CPU quota"
        cgroup = f"its cgroup {facts.smbd_cgroup}" if facts.smbd_cgroup else "its cgroup"
        return (f"smbd, held back by its CPU limit: {cgroup} allows {allows}, and the kernel throttled it in "
                f"{throttled:.0f}% of its scheduling periods during the copies")
    if facts.smbd_cpu_percent is not None and facts.smbd_cpu_percent >= SMBD_BUSY_PERCENT:
        return f"smbd's CPU: it used {facts.smbd_cpu_percent:.0f}% of one core (one smbd process serves each client)"
    if (desktop := client_cpu_text(facts, smb_bytes_per_s)) is not None:
        smbd = f" (not smbd: it used {facts.smbd_cpu_percent:.0f}% of one core)" if facts.smbd_cpu_percent is not None else ""
        return desktop + smbd
    if facts.smbd_cpu_percent is not None:
        held = f", not throttled ({throttled:.0f}% of periods)" if throttled is not None else ""
        return (f"not smbd (it used {facts.smbd_cpu_percent:.0f}% of one core{held}): signing or encryption, or the "
                "client (its CPU, its disk, its copy tool)")
    return None


def path_mtu(facts: Facts) -> int:
    """The smallest MTU on the path sets the MSS every stream gets (1500 bytes when unknown)."""
    return min(facts.mtus.values()) if facts.mtus else DEFAULT_MTU


def target_value(target: Target, direction: Direction) -> float | None:
    return target.read_bytes_per_s if direction == "read" else target.write_bytes_per_s


# ---- the rules ----

def _link_negotiated_low(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    neg, cap = facts.link_negotiated_bps, facts.link_capable_bps
    if neg is None or cap is None or neg >= cap:
        return None
    mtu = path_mtu(facts)
    return Advice(
        rule="link-negotiated-low",
        severity="critical",
        text=(
            f"the link negotiated {format_rate(neg)} but the NICs can do {format_rate(cap)}: TCP goodput is capped at "
            f"{mb_s(tcp_goodput_bps(neg, mtu) / 8)} instead of {mb_s(tcp_goodput_bps(cap, mtu) / 8)} (estimated, MTU "
            f"{mtu} bytes); check the cable, the switch port and any forced speed or duplex setting "
            "(field report 003 in docs/physics.md §8: a laptop NIC at 100 Mb/s capped network storage at about 10-12.5 MB/s)"
        ),
    )


def _upgrade_text(needed: float, mtu: int) -> str:
    """The slowest common link whose goodput beats ``needed`` bytes/s with headroom; multichannel past 10 Gb/s."""
    for speed in UPGRADE_SPEEDS_BPS:
        goodput = tcp_goodput_bps(speed, mtu) / 8
        if goodput >= needed * UPGRADE_HEADROOM:
            text = f"a {format_rate(speed)} link ({mb_s(goodput)} TCP goodput at MTU {mtu} bytes) can"
            if speed > 10e9:
                per_nic = tcp_goodput_bps(MULTICHANNEL_NIC_BPS, mtu) / 8
                nics = math.ceil(needed * UPGRADE_HEADROOM / per_nic)
                text += (
                    f", or SMB multichannel over {nics} x {format_rate(MULTICHANNEL_NIC_BPS)} NICs "
                    f"({mb_s(nics * per_nic)}; separate NICs, not a LAGG)"
                )
            return text
    return f"no single link up to {format_rate(UPGRADE_SPEEDS_BPS[-1])} can: use SMB multichannel over several NICs"


ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"}
MAX_PORTS = 8  # more ports than this on one NAS is no advice: a faster port is


def _ports_text(needed: float, ports_bps: Sequence[int], mtu: int) -> str:
    """The aggregate's link is the NAS's ports summed: more of the same ports, or faster ones, that carry ``needed``
    bytes/s ('a third 1 Gb/s port, or 2.5 Gb/s ports, would carry 235.4 -> 353.1 / 588.4 MB/s')."""
    now = sum(tcp_goodput_bps(rate, mtu) for rate in ports_bps) / 8
    fastest = max(ports_bps)
    per_port = tcp_goodput_bps(fastest, mtu) / 8
    options = []
    extra = next((k for k in range(1, MAX_PORTS - len(ports_bps) + 1) if now + k * per_port >= needed), None)
    if extra is not None:
        total = len(ports_bps) + extra
        what = (f"a {ORDINALS[total]} {format_rate(fastest)} port" if extra == 1
                else f"{extra} more {format_rate(fastest)} ports")
        options.append((what, now + extra * per_port))
    faster = next((speed for speed in UPGRADE_SPEEDS_BPS if speed > fastest
                   and len(ports_bps) * tcp_goodput_bps(speed, mtu) / 8 >= needed), None)
    if faster is not None:
        options.append((f"{format_rate(faster)} ports", len(ports_bps) * tcp_goodput_bps(faster, mtu) / 8))
    if not options:
        return f"no {len(ports_bps)} ports up to {format_rate(UPGRADE_SPEEDS_BPS[-1])} carry {mb_s(needed)}"
    whats = ", or ".join(w for w, _ in options)
    carry = " / ".join(mb_s(c).removesuffix(" MB/s") for _, c in options)
    return (f"{whats}, would carry {mb_s(now).removesuffix(' MB/s')} -> {carry} MB/s (estimated, TCP goodput at MTU "
            f"{mtu} bytes)")


def _more_link_text(needed: float, facts: Facts) -> str:
    """What would carry ``needed`` bytes/s: more or faster NAS ports for the aggregate, a faster link for one client."""
    mtu = path_mtu(facts)
    if facts.nas_ports_bps:
        return _ports_text(needed * UPGRADE_HEADROOM, facts.nas_ports_bps, mtu)
    return _upgrade_text(needed, mtu)


def _half_duplex(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    if (facts.duplex or "").lower() != "half":
        return None
    speed = f" at {format_rate(facts.link_negotiated_bps)}" if facts.link_negotiated_bps else ""
    return Advice(
        rule="half-duplex",
        severity="critical",
        text=(
            f"the NAS's port negotiated half duplex{speed}: it cannot send and receive at once, and every "
            "collision costs throughput; set both ends (NIC and switch port) to auto-negotiate, or both to the same "
            "full-duplex speed, and replace a cable that only links at half duplex"
        ),
    )


def _link_down_during_run(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    if not facts.link_downs:
        return None
    return Advice(
        rule="link-down-during-run",
        severity="critical",
        text=(
            f"the NAS's port lost its link {facts.link_downs} time(s) during the run (the kernel's "
            "carrier changes before and after): every figure measured across it may be low; check the cable, the "
            "transceiver and the switch port, then measure again"
        ),
    )


def _link_below_target(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    losing: list[tuple[Direction, Ceiling, float]] = []
    for direction, ceilings in by_dir.items():
        link, want = best(ceilings, "link"), target_value(target, direction)
        if link is not None and want is not None and link.bytes_per_s < want:
            losing.append((direction, link, want))
    if not losing:
        return None
    link = losing[0][1]
    speed = f"{format_rate(facts.link_negotiated_bps)} " if facts.link_negotiated_bps else ""
    wants = ", ".join(f"{mb_s(want)} {d}" for d, _, want in losing)
    needed = max(want for _, _, want in losing)
    return Advice(
        rule="link-below-target",
        severity="warning",
        text=(
            f"the {speed}link carries at most {ceiling_text(link)} of TCP payload, so SMB over it can never beat "
            f"{target.title} ({wants}); {_more_link_text(needed, facts)}"
        ),
    )


def _loses_at_its_bound(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    """SMB loses, and not by its own doing (not far below the chain): the bottleneck must rise. Says which, by
    how much (for SMB, at the share of it it reaches now, to beat the target), and what would carry that."""
    parts, remedies = [], []
    for direction, ceilings in by_dir.items():
        smb, neck, want = measured_smb(ceilings), bottleneck(ceilings), target_value(target, direction)
        if smb is None or want is None or smb.bytes_per_s >= want or smb.bytes_per_s <= 0 or neck in (None, "smb"):
            continue  # it wins, there is nothing to judge, or SMB's own doing (smb-far-below says what)
        bound = best(ceilings, neck)
        assert bound is not None
        parts.append(f"SMB {direction} {mb_s(smb.bytes_per_s)} loses to {mb_s(want)} by "
                     f"{(want - smb.bytes_per_s) / want:.1%} at {smb.bytes_per_s / bound.bytes_per_s:.0%} of the "
                     f"{ceiling_text(bound)} the {bound.component} allows")
        needed = max(want, want * bound.bytes_per_s / smb.bytes_per_s)
        remedies.append(_bound_remedy(bound, needed, ceilings, facts))
    if not parts:
        return None
    return Advice(rule="loses-at-its-bound", severity="warning",
                  text=f"{'; '.join(parts)}: {'; '.join(dict.fromkeys(remedies))}, enough to beat {target.title}")


def _bound_remedy(bound: Ceiling, needed: float, ceilings: Sequence[Ceiling], facts: Facts) -> str:
    """What would lift ``bound`` to carry ``needed`` bytes/s (with UPGRADE_HEADROOM), as a clause."""
    if bound.component == "link":
        if facts.nas_ports_bps:
            return _ports_text(needed * UPGRADE_HEADROOM, facts.nas_ports_bps, path_mtu(facts))
        return _upgrade_text(needed, path_mtu(facts)).removesuffix(" can") + " would carry it"
    if bound.component == "network":
        link = best(ceilings, "link")
        share = f", {bound.bytes_per_s / link.bytes_per_s:.0%} of the link's {ceiling_text(link)}" if link else ""
        return (f"the network carried {ceiling_text(bound)}{share}: find what costs it throughput (iperf3's "
                f"retransmits, the NICs' driver and offloads, the switch, either end's CPU) until it carries "
                f"{mb_s(needed * UPGRADE_HEADROOM)}")
    return (f"a pool that reads and writes {mb_s(needed * UPGRADE_HEADROOM)} (more vdevs: reads and writes stripe "
            "across them; or faster disks)")


def _mtu_mismatch(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    if len(set(facts.mtus.values())) < 2:
        return None
    listing = ", ".join(f"{name} {mtu} bytes" for name, mtu in sorted(facts.mtus.items()))
    big = max(facts.mtus.values())
    return Advice(
        rule="mtu-mismatch",
        severity="critical",
        text=(
            f"MTUs differ along the path ({listing}): jumbo frames must match end to end, a mismatch can drop "
            f"throughput to zero; set one MTU on every interface and check each peer with a don't-fragment ping of "
            f"MTU-28 bytes payload (ping -M do -s {big - 28} <peer>, {big} - 20 IPv4 - 8 ICMP)"
        ),
    )


def _single_stream_low(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    one, many = facts.net_single_stream_bps, facts.net_multi_stream_bps
    if one is None or many is None or many <= 0 or one >= SINGLE_STREAM_LOW_RATIO * many:
        return None
    return Advice(
        rule="single-stream-low",
        severity="warning",
        text=(
            f"one TCP stream reached {format_rate(one)} ({mb_s(one / 8)}), several streams {format_rate(many)} "
            f"({mb_s(many / 8)}): one stream gets {one / many:.0%} of the link, and one SMB connection is one stream; "
            "check the CPU and interrupt affinity of the NICs, the TCP window (net.core.rmem_max/wmem_max), or use "
            "SMB multichannel (field report 000 in docs/physics.md §8: 5.34 Gb/s with 1 stream vs 9.6 Gb/s with 8-10 streams)"
        ),
    )


def _ceiling_below_smb(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    """A ceiling SMB passed more than through it: the verdict cannot rest on it (verdict/overrun.py says why);
    what makes the two figures comparable."""
    parts, pool = [], False
    for direction, ceilings in by_dir.items():
        smb = measured_smb(ceilings)
        for c in overrun_ceilings(ceilings):
            pool = pool or c.component == "pool"
            parts.append(f"SMB {direction} {mb_s(smb.bytes_per_s)} through the {c.component}'s {ceiling_text(c)}")
    if not parts:
        return None
    fix = ("measure the pool on a dataset like the share's (compression, dedup, recordsize, sync) and copy files "
           "larger than the NAS holds in RAM for writes (smb_file), so write-back cannot hide the disks" if pool else
           "measure the network with as many streams as SMB has connections, over the path SMB takes")
    return Advice(rule="ceiling-below-smb", severity="warning",
                  text=f"{'; '.join(parts)}: a figure below what passed through it is no bound, so the verdict "
                       f"cannot say what holds SMB back there; {fix}, then measure again")


def _path_loses_packets(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    text = loss_advice(facts)
    return Advice(rule="path-loses-packets", severity="warning", text=text) if text else None


def _pool_below_network(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    parts: list[str] = []
    for direction, ceilings in by_dir.items():
        pool = best(ceilings, "pool")
        net = best(ceilings, "network") or best(ceilings, "link")
        if pool is not None and overruns(measured_smb(ceilings), pool):
            continue  # no bound: SMB passed more through it (the verdict says why)
        if pool is not None and net is not None and pool.bytes_per_s < net.bytes_per_s:
            parts.append(f"pool {direction} {ceiling_text(pool)} < {net.component} {ceiling_text(net)}")
    if not parts:
        return None
    return Advice(
        rule="pool-below-network",
        severity="warning",
        text=(
            f"the pool is slower than the network ({'; '.join(parts)}): a faster link will not help; more vdevs "
            "(reads and writes stripe across vdevs), faster disks, or a record size that suits the files will"
        ),
    )


def _far_below(by_dir: ByDirection) -> list[tuple[Direction, Ceiling, Ceiling]]:
    found = []
    for direction, ceilings in by_dir.items():
        pair = smb_far_below(ceilings)
        if pair is not None:
            found.append((direction, *pair))
    return found


def _smb_far_below(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    found = _far_below(by_dir)
    if not found:
        return None
    parts = "; ".join(
        f"SMB {d} {mb_s(smb.bytes_per_s)} is {smb.bytes_per_s / bound.bytes_per_s:.0%} of the "
        f"{ceiling_text(bound)} the {bound.component} allows"
        for d, smb, bound in found
    )
    cpu = f" (smbd used {facts.smbd_cpu_percent:.0f}% of one core)" if facts.smbd_cpu_percent is not None else ""
    far = {d for d, _, _ in found}
    costs = [c for c in dataset_costs(facts) if far.intersection(c.directions)]
    share = (f". The share's dataset costs throughput the pool's measurement did not pay: "
             f"{'; '.join(c.text() for c in costs)}") if costs else ""
    cause = smb_cause(facts)
    if cause and cause.startswith("smbd, held back"):
        fix = "; raise or remove the CPU limit on smbd's service (its cgroup's cpu.max) and measure again"
    else:
        fix = ""
    return Advice(
        rule="smb-far-below",
        severity="warning",
        text=(
            f"{parts}: SMB itself is the limit. smbd serves each client with one process, about one core{cpu}; "
            "signing and encryption cost CPU per byte; the client (its disk, its NIC, the copy tool) may be slower "
            f"than the NAS{share}" + (f". Measured: {cause}{fix}" if cause else "")
        ),
    )


def _client_cpu(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    found, bound = _far_below(by_dir), client_cpu_bound(facts)
    if not found or bound is None:
        return None
    used, allowed = bound
    who = f"{facts.client_name}'s" if facts.client_name else "the desktop's"
    figures = ", ".join(f"SMB {d} {mb_s(smb.bytes_per_s)}" for d, smb, _ in found)
    return Advice(
        rule="client-cpu",
        severity="warning",
        text=(
            f"{who} SMB client used {used:.2f} of a core during the copies, {used / allowed:.0%} of the "
            f"{allowed:.2g} of a core it may use (one copy is one thread; less where the desktop's CPUs or its "
            f"cgroup's limit allow less): the desktop's CPU holds SMB back ({figures}), not the NAS; a desktop with "
            "a faster core or less else running, its CPU limit raised, or SMB signing and encryption off (the client "
            "pays for them per byte too) lets SMB go faster"
        ),
    )


def _smb_crypto(rule: str, enabled: Callable[[Facts], bool | None], what: str) -> Rule:
    def check(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
        found = _far_below(by_dir)
        if not enabled(facts) or not found:
            return None
        figures = ", ".join(f"SMB {d} {mb_s(smb.bytes_per_s)}" for d, smb, _ in found)
        return Advice(rule=rule, severity="info", text=f"{what} is on and SMB is the bottleneck ({figures}): {_CRYPTO[rule]}")

    return check


_CRYPTO = {
    "smb-encryption": "every byte is encrypted (AES-GCM/CCM) inside smbd's one core; measure a share without "
    "encryption to see its cost, and prefer AES-128-GCM on CPUs with AES-NI",
    "smb-signing": "every message is signed (AES-CMAC/GMAC for SMB 3) inside smbd's one core; measure with "
    "signing off on a trusted network to see its cost, or use SMB 3.1.1 with AES-GMAC signing",
}


def _lagg_single_flow(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    proto = (facts.lagg_protocol or "").upper()
    members = facts.lagg_members or 0
    if proto not in LAGG_PER_FLOW or members < 2:
        return None
    member = ""
    if facts.link_negotiated_bps:
        goodput = tcp_goodput_bps(facts.link_negotiated_bps, path_mtu(facts)) / 8
        member = f" ({format_rate(facts.link_negotiated_bps)}, {mb_s(goodput)} goodput, estimated)"
    if proto == "FAILOVER":
        head = f"FAILOVER over {members} members uses one member at a time{member}: it adds redundancy, not speed"
    else:
        head = (
            f"{proto} over {members} members hashes each flow onto one member: one flow (one SMB connection) never "
            f"exceeds one member{member}; many clients add up"
        )
    return Advice(
        rule="lagg-single-flow",
        severity="info",
        text=f"{head}; SMB multichannel does not work over a LAGG: for one fast client use separate NICs on separate subnets",
    )


def multichannel_how(facts: Facts) -> str:
    """How to turn multichannel on where this NAS keeps its SMB settings."""
    if facts.nas_truenas:
        return ("on this TrueNAS: midclt call smb.update '{\"multichannel\": true}' (Services > SMB > Multichannel), "
                "SCALE 22.12.3 or later")
    return "in smb.conf's [global]: server multichannel support = yes, then smbcontrol smbd reload-config"


def smbd_core_text(facts: Facts) -> str | None:
    """'smbd used 97% of one core' when smbd used SMBD_BUSY_PERCENT or more of the CPU it may use: one core
    (one process serves a client), or less where a CPU limit holds it (a slower core, in effect); else None."""
    cpu, limit = facts.smbd_cpu_percent, facts.smbd_cpu_limit_cores
    usable = min(1.0, limit) if limit else 1.0
    if cpu is None or cpu < SMBD_BUSY_PERCENT * usable:
        return None
    held = f", all its CPU limit of {limit:.2g} of a core allows" if usable < 1 else ""
    return f"smbd used {cpu:.0f}% of one core{held}"


def _smb_multichannel_off(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    busy = smbd_core_text(facts)
    if facts.smb_multichannel is not False or busy is None:
        return None
    found = _far_below(by_dir)
    if not found:
        return None
    parts = "; ".join(f"SMB {d} {mb_s(smb.bytes_per_s)} of the {ceiling_text(bound)} the {bound.component} allows"
                      for d, smb, bound in found)
    return Advice(
        rule="smb-multichannel-off",
        severity="warning",
        text=(
            f"{busy}, while the link had room ({parts}), and SMB multichannel is off: the "
            f"client's one connection is one TCP stream into one busy smbd; turn multichannel on ({multichannel_how(facts)}) "
            "so a client with several NICs, or one RSS-capable NIC (Windows), opens several channels; "
            "separate NICs on separate subnets, not a LAGG"
        ),
    )


def _smb_multichannel_lagg(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    members = facts.lagg_members or 0
    if facts.smb_multichannel is not True or not facts.lagg_protocol or members < 2:
        return None
    each = f" ({format_rate(facts.link_negotiated_bps)} each)" if facts.link_negotiated_bps else ""
    return Advice(
        rule="smb-multichannel-lagg",
        severity="info",
        text=(
            f"SMB multichannel is on, but the NAS's port is a {facts.lagg_protocol.upper()} LAGG of {members} "
            f"members{each}: multichannel does not work over a LAGG (TrueNAS's documentation says so; the channels "
            "reach the LAGG's one address and its hash decides the member); for one fast client give the NAS separate "
            "NICs, each with its own address on its own subnet, instead of the LAGG"
        ),
    )


def _smb_one_channel(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    nics = facts.nas_smb_nics or 0
    if facts.smb_channels != 1 or nics < 2:
        return None
    smb = [f"SMB {d} {mb_s(c.bytes_per_s)}" for d in DIRECTIONS if (c := measured_smb(by_dir.get(d, [])))]
    figures = f" ({', '.join(smb)})" if smb else ""
    if facts.smb_multichannel is False:
        then = f"SMB multichannel is off on the NAS: turn it on ({multichannel_how(facts)})"
    else:
        then = ("the client must ask for more: Windows opens several channels when it has several NICs (or one "
                "RSS-capable NIC) with addresses the NAS's interfaces reach (Get-SmbMultichannelConnection lists "
                "them); smbclient always uses one channel")
    return Advice(
        rule="smb-one-channel",
        severity="info",
        text=(
            f"the client's SMB session used 1 channel{figures} while the NAS has {nics} interfaces that could each "
            f"carry one: {then}"
        ),
    )


def _pool_member_dragging(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    found = dragging_text(facts.pool_member_wait_ms, facts.pool_member_busy_percent)
    if found is None:
        return None
    name = found.split(":")[0]
    return Advice(
        rule="pool-member-dragging",
        severity="warning",
        text=(
            f"one disk of the pool stands out ({found}): a vdev waits for its slowest member and the pool for its "
            f"slowest vdev; check that disk's health (smartctl -a /dev/{name.rsplit('/', 1)[-1]}), its cable "
            "and port, and replace it if it stays slow"
        ),
    )


def _pool_needs_threads(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    parts = []
    for direction in DIRECTIONS:
        one = facts.pool_one_thread_bps.get(direction)
        best_bps = facts.pool_best_thread_bps.get(direction)
        threads = facts.pool_best_threads.get(direction)
        if one and best_bps and threads and threads > 1 and best_bps >= NEEDS_THREADS_RATIO * one:
            parts.append(f"{direction} {mb_s(one)} with 1 thread, {mb_s(best_bps)} with {threads}")
    if not parts:
        return None
    return Advice(
        rule="pool-needs-threads",
        severity="info",
        text=(
            f"the pool needs several threads to give its best ({'; '.join(parts)}): the verdict uses the best "
            "thread count, which several clients, or one client copying several files at once (robocopy /MT, "
            "several Explorer copies), reach; one copy of one file gets about the one-thread figure"
        ),
    )


def _small_files_head(facts: Facts) -> str:
    size = format_size(facts.small_file_size) if facts.small_file_size else "small"
    rate = f" at {files_per_s(facts.small_files_per_s)}" if facts.small_files_per_s else ""
    return f"{size} files{rate}"


def _small_files_round_trips(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    share = round_trip_share(facts)
    if not latency_bound(facts) or share is None:
        return None
    return Advice(
        rule="small-files-round-trips",
        severity="warning",
        text=(f"{_small_files_head(facts)}: each file took {facts.small_file_ms:.2f} ms, and its "
              f"{ROUND_TRIPS_PER_FILE} round trips (create, write, close) of {facts.round_trip_ms:.2f} ms on this "
              f"link are {min(100.0, 100 * share):.0f}% of it: latency, not bandwidth, sets the pace; copy many "
              "files at once (robocopy /MT:16, several copies side by side), pack them into one archive before "
              "copying, or shorten the path to the NAS (a direct cable, no VPN, no Wi-Fi, no routed hops)"),
    )


def _small_files_smbd_cpu(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    if not smbd_busy(facts):
        return None
    return Advice(
        rule="small-files-smbd-cpu",
        severity="warning",
        text=(f"{_small_files_head(facts)}: smbd used {facts.small_files_smbd_cpu_percent:.0f}% of one core for "
              "them: its per-file work (open, close, metadata, every VFS module of the share) holds them back; "
              "a faster core helps, and so does a share without audit or other per-file VFS modules"),
    )


def _small_files_signing(target: Target, by_dir: ByDirection, facts: Facts) -> Advice | None:
    if not facts.smb_signing or facts.small_file_ms is None:
        return None
    return Advice(
        rule="small-files-signing",
        severity="info",
        text=(f"{_small_files_head(facts)}: SMB signing is on, so every create, write and close of each file "
              f"({facts.small_file_ms:.2f} ms per file) is signed by smbd and by the desktop; measure with signing "
              "off on a trusted network to see its share of it"),
    )


RULES: tuple[Rule, ...] = (
    _link_down_during_run,
    _half_duplex,
    _link_negotiated_low,
    _link_below_target,
    _loses_at_its_bound,
    _mtu_mismatch,
    _single_stream_low,
    _path_loses_packets,
    _ceiling_below_smb,
    _pool_below_network,
    _smb_far_below,
    _client_cpu,
    _smb_crypto("smb-encryption", lambda f: f.smb_encryption, "SMB encryption"),
    _smb_crypto("smb-signing", lambda f: f.smb_signing, "SMB signing"),
    _lagg_single_flow,
    _smb_multichannel_off,
    _smb_multichannel_lagg,
    _smb_one_channel,
    _pool_member_dragging,
    _pool_needs_threads,
    _small_files_round_trips,
    _small_files_smbd_cpu,
    _small_files_signing,
)


def advise(
    target: Target, ceilings: Sequence[Ceiling], facts: Facts, directions: Sequence[DirectionVerdict]
) -> list[Advice]:
    """Every rule that applies, in the fixed order of RULES (most fundamental first).

    A direction's ceilings come from its DirectionVerdict (which may hold a link estimate judge() added
    from the facts); ceilings for a direction with no verdict are taken as given.
    """
    by_dir: dict[Direction, list[Ceiling]] = {}
    judged = {dv.direction: dv for dv in directions}
    for direction in DIRECTIONS:
        if direction in judged:
            by_dir[direction] = list(judged[direction].ceilings)
        else:
            given = [c for c in ceilings if c.direction == direction]
            if given:
                by_dir[direction] = given
    return [advice for rule in RULES if (advice := rule(target, by_dir, facts)) is not None]
