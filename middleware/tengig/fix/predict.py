"""What SMB should reach once a fix's bound is gone (pure): the lowest of the ceilings the fix leaves alone,
from the verdict's own chain. SMB itself never costs nothing, so this is the most the fix can give: a fix that
lifts SMB to it has done all the run's other figures allow."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..bench.run.suite import ClientReport
from ..verdict.advice import best, ceiling_text, chain_bound, mb_s, measured_smb
from ..verdict.models import Ceiling, Direction, DirectionVerdict
from ..verdict.thresholds import link_ceiling
from .models import Prediction


def _prediction(direction: Direction, smb: Ceiling, bound: Ceiling, gone: str) -> Prediction | None:
    if bound.bytes_per_s <= smb.bytes_per_s:
        return None  # the ceilings left allow no more than SMB measured: nothing to predict a gain from
    return Prediction(
        direction=direction, measured_bytes_per_s=smb.bytes_per_s, predicted_bytes_per_s=bound.bytes_per_s,
        bound=bound.component, bound_label=bound.label,
        why=(f"SMB {direction} {mb_s(smb.bytes_per_s)} now; with {gone} gone, the lowest ceiling left is the "
             f"{bound.component}, {bound.label}: {ceiling_text(bound)}, so SMB {direction} up to "
             f"{mb_s(bound.bytes_per_s)} ({bound.bytes_per_s / smb.bytes_per_s:.2g}x)"))


def _scaled(figure: float, used: float, usable: float) -> float:
    return figure * usable / used


def smb_own_ceilings(report: ClientReport, smbd_limit_cores: float | None) -> dict[Direction, Ceiling]:
    """SMB's own cost as the run measured it, per direction, at both ends of the copy: smbd used X% of one core
    for the SMB figure (one smbd process serves a client: one core, or less where its CPU limit holds it), and
    the desktop's SMB client Y of a core (a copy is one thread: one core, or the desktop's CPUs' worth when
    lower). Where a fix leaves their work per byte alone (a dataset property: the disks' work, not theirs), each
    moves at most figure x usable / used; the lower of the two, per direction."""
    out: dict[Direction, Ceiling] = {}
    who = report.client
    for direction in ("read", "write"):
        d = getattr(report.smb, direction, None) if report.smb else None
        if d is None or not d.bytes_per_s.median:
            continue
        figure, found = d.bytes_per_s.median, []
        if d.smbd_cpu_percent and d.smbd_cpu_percent > 0:
            usable = min(1.0, smbd_limit_cores) if smbd_limit_cores else 1.0
            held = f"its CPU limit of {usable:.2g} of a core" if usable < 1 else "one core"
            found.append((_scaled(figure, d.smbd_cpu_percent / 100, usable),
                          f"smbd at {held} (it used {d.smbd_cpu_percent:.0f}% of one core for {mb_s(figure)})"))
        cpu = d.client_cpu
        if cpu is not None and cpu.cores > 0:
            usable = min(1.0, cpu.cpus) if cpu.cpus else 1.0
            found.append((_scaled(figure, cpu.cores, usable), f"{who}'s SMB client at {usable:.2g} of a core (it "
                          f"used {cpu.cores:.2f} of a core for {mb_s(figure)})"))
        if found:
            value, label = min(found)
            out[direction] = Ceiling(component="smb", direction=direction, bytes_per_s=value,
                                     provenance="estimated", label=label)
    return out


def chain_predictions(directions: Sequence[DirectionVerdict], which: Sequence[Direction], gone: str,
                      smbd: Mapping[Direction, Ceiling] | None = None) -> list[Prediction]:
    """For a cost inside SMB (encryption, signing, one channel, a costly dataset property): the lowest of pool,
    link and network, per direction in ``which``; and, where the fix leaves smbd's work per byte alone, smbd's
    own ceiling (``smbd``: smb_own_ceilings) when it is lower."""
    out = []
    for dv in directions:
        smb, bound = measured_smb(dv.ceilings), chain_bound(dv.ceilings)
        own = (smbd or {}).get(dv.direction)
        if bound is not None and own is not None and own.bytes_per_s < bound.bytes_per_s:
            bound = own
        if dv.direction in which and smb is not None and bound is not None:
            if (p := _prediction(dv.direction, smb, bound, gone)) is not None:
                out.append(p)
    return out


def mtu_predictions(directions: Sequence[DirectionVerdict], line_rate_bps: int | None, mtu: int,
                    gone: str) -> list[Prediction]:
    """For an MTU mismatch: the network measured across it is the bound that goes; what is left is the pool and
    the link's physics at the MTU both ends then share."""
    out = []
    for dv in directions:
        smb = measured_smb(dv.ceilings)
        left = [c for c in (best(dv.ceilings, "pool"),) if c is not None]
        if line_rate_bps:
            left.append(link_ceiling(line_rate_bps, mtu, dv.direction))
        if smb is not None and left:
            if (p := _prediction(dv.direction, smb, min(left, key=lambda c: c.bytes_per_s), gone)) is not None:
                out.append(p)
    return out
