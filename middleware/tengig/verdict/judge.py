"""The verdict: does SMB beat the target, by how much, and which component holds it back.

The chain is pool -> link -> network -> SMB. SMB can be no faster than the slowest of the first three,
so that one is the bottleneck, unless SMB sits far below it: then the loss happens inside SMB itself
(one smbd core per client, signing/encryption, the client). A measured network close to the link's
physical goodput is the link working at its ceiling, so the link is named, not "the network".
Only a measured SMB figure can beat or lose to a target; estimates are labelled wherever they appear.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import ValidationError
from ..units import format_rate
from .advice import (  # noqa: F401  (NETWORK_AT_LINK_RATIO: judge's rule, kept importable here)
    CHAIN_ORDER,
    DIRECTIONS,
    NETWORK_AT_LINK_RATIO,
    SMB_FAR_BELOW_RATIO,
    advise,
    best,
    bottleneck,
    ceiling_text,
    chain_bound,
    mb_s,
    measured_smb,
    path_mtu,
    smb_cause,
    smb_far_below,
    target_value,
)
from .confidence import close_calls, how_sure
from .loss import loss_text
from .overrun import overrun_texts
from .thresholds import link_ceiling
from .small_files import small_files_line
from .models import Ceiling, Component, DirectionVerdict, Direction, Facts, Target, Verdict



def _with_link_estimates(ceilings: Sequence[Ceiling], facts: Facts) -> list[Ceiling]:
    """Add the link's physical goodput (estimated) for directions that lack one, when the facts know the speed.

    The link ceiling is pure physics (docs/physics.md §1), so leaving it out only because nobody passed it
    would hide the most common bottleneck; it is marked estimated like every computed number.
    """
    out = list(ceilings)
    if not facts.link_negotiated_bps:
        return out
    mtu = path_mtu(facts)
    directions = {c.direction for c in ceilings} or set(DIRECTIONS)
    for direction in DIRECTIONS:
        if direction in directions and not any(c.component == "link" and c.direction == direction for c in ceilings):
            out.append(link_ceiling(facts.link_negotiated_bps, mtu, direction))
    return out


def _chain_sorted(ceilings: Sequence[Ceiling]) -> list[Ceiling]:
    """Pool, link, network, SMB: the order bytes travel, stable within a component."""
    return sorted(ceilings, key=lambda c: CHAIN_ORDER.index(c.component))


def _judge_direction(target: Target, direction: Direction, ceilings: list[Ceiling]) -> DirectionVerdict:
    smb = measured_smb(ceilings)
    want = target_value(target, direction)
    beats = margin = None
    if smb is not None and want is not None:
        beats = smb.bytes_per_s > want
        margin = (smb.bytes_per_s - want) / want * 100
    neck = bottleneck(ceilings)
    return DirectionVerdict(
        direction=direction,
        smb_bytes_per_s=smb.bytes_per_s if smb is not None else None,
        target_bytes_per_s=want,
        beats_target=beats,
        margin_percent=margin,
        bottleneck=neck,
        ceilings=_chain_sorted(ceilings),
        close_calls=close_calls(target, direction, ceilings, neck),
    )


def _bottleneck_text(dv: DirectionVerdict, facts: Facts) -> str:
    """What holds this direction back, with its ceiling and unit; 'estimated' when SMB was not measured."""
    comp = dv.bottleneck
    if comp is None and dv.smb_bytes_per_s is not None and any(
            c.component in ("pool", "link", "network") for c in dv.ceilings):
        return f"bottleneck unknown: SMB {dv.direction if dv.direction == 'read' else 'wrote'} more than every " \
               "ceiling measured"
    if comp is None:
        return "bottleneck unknown (no pool, link or network ceiling)"
    label = "bottleneck" if dv.smb_bytes_per_s is not None else "bottleneck (estimated, SMB not measured)"
    if comp == "smb":
        pair = smb_far_below(dv.ceilings)
        assert pair is not None  # bottleneck() said so
        smb, bound = pair
        cause = smb_cause(facts, smb.bytes_per_s) or "smbd CPU, signing/encryption or the client"
        return (
            f"{label}: SMB itself ({cause}), at "
            f"{smb.bytes_per_s / bound.bytes_per_s:.0%} of the {ceiling_text(bound)} the {bound.component} allows "
            f"(far below: under {SMB_FAR_BELOW_RATIO:.0%})"
        )
    ceiling = best(dv.ceilings, comp)
    assert ceiling is not None
    if comp == "link":
        speed = f" at {format_rate(facts.link_negotiated_bps)}" if facts.link_negotiated_bps else ""
        return f"{label}: the link{speed}, ceiling {ceiling_text(ceiling)}"
    if comp == "network":
        return f"{label}: the network, ceiling {ceiling_text(ceiling)} ({format_rate(ceiling.bytes_per_s * 8)})"
    threads = facts.pool_best_threads.get(dv.direction)
    used = f" at {threads} thread(s), the best of the thread sweep" if threads else ""
    return f"{label}: the pool, ceiling {ceiling_text(ceiling)}{used}"


def _direction_clause(target: Target, dv: DirectionVerdict, facts: Facts) -> str:
    said = [_judged_clause(target, dv, facts), *overrun_texts(dv.ceilings, dv.direction, facts)]
    loss = loss_text(facts, dv.direction)
    return "; ".join(said + ([loss] if loss else []))


def _judged_clause(target: Target, dv: DirectionVerdict, facts: Facts) -> str:
    d = dv.direction
    if dv.smb_bytes_per_s is None:
        bound = chain_bound(dv.ceilings)
        reach = f"; the chain allows at most {ceiling_text(bound)}" if bound is not None else ""
        want = f" (target {mb_s(dv.target_bytes_per_s)})" if dv.target_bytes_per_s is not None else ""
        return f"SMB {d} not measured{want}{reach}, {_bottleneck_text(dv, facts)}"
    smb = mb_s(dv.smb_bytes_per_s)
    if dv.target_bytes_per_s is None or dv.margin_percent is None:
        return f"SMB {d} {smb}, no {d} figure for this target to compare with, {_bottleneck_text(dv, facts)}"
    verb = "beats" if dv.beats_target else "loses to"
    return (
        f"SMB {d} {smb} {verb} {mb_s(dv.target_bytes_per_s)} by {abs(dv.margin_percent):.1f}%, "
        f"{_bottleneck_text(dv, facts)}"
    )


def summarize(target: Target, directions: Sequence[DirectionVerdict], facts: Facts) -> str:
    """One sentence per verdict: against what, per direction win/lose and margin, and what holds it back."""
    clauses = "; ".join(_direction_clause(target, dv, facts) for dv in directions)
    return f"Against {target.title}: {clauses}. {how_sure(directions)} (MB/s = 10^6 bytes/s.)"


def judge(target: Target, ceilings: list[Ceiling], facts: Facts) -> Verdict:
    """The verdict for ``target`` from the ceilings chain and the facts; raises ValidationError on nothing to judge.

    Directions without any ceiling are left out rather than shown as zeros: "not measured" is not 0 MB/s.
    """
    chain = _with_link_estimates(ceilings, facts)
    if not chain:
        raise ValidationError.one(
            "ceilings",
            "nothing to judge: give at least one pool, link, network or SMB ceiling (or the link speed in the facts)",
        )
    directions = [
        _judge_direction(target, d, [c for c in chain if c.direction == d])
        for d in DIRECTIONS
        if any(c.direction == d for c in chain)
    ]
    return Verdict(
        target=target,
        directions=directions,
        advice=advise(target, chain, facts, directions),
        summary=summarize(target, directions, facts),
        small_files=small_files_line(facts),
    )
