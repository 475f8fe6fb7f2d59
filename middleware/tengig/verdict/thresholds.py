"""The figures the verdict compares a measurement with (pure). A repeated measurement whose median can no
longer cross any of them has been measured enough for the verdict (bench/stats.settled stops there)."""
from __future__ import annotations

from collections.abc import Sequence

from ..units import format_rate
from .advice import SMB_FAR_BELOW_RATIO, chain_bound, mb_s, target_value
from .ceilings import tcp_goodput_bps
from .models import Ceiling, Direction, Target

# (what it is, value in bytes/s): ("the target's 223.4 MB/s", 223.4e6)
Threshold = tuple[str, float]


def link_ceiling(line_rate_bps: float, mtu: int, direction: Direction) -> Ceiling:
    """The link's physical TCP goodput at this MTU (estimated, docs/physics.md §1)."""
    return Ceiling(component="link", direction=direction, bytes_per_s=tcp_goodput_bps(line_rate_bps, mtu) / 8,
                   provenance="estimated",
                   label=f"link {format_rate(line_rate_bps)} TCP goodput at MTU {mtu} bytes (docs/physics.md §1)")


def link_ceilings(line_rate_bps: float | None, mtu: int) -> list[Ceiling]:
    """Both directions' link ceilings; none when the line rate is unknown."""
    return [link_ceiling(line_rate_bps, mtu, d) for d in ("read", "write")] if line_rate_bps else []


def _target(target: Target, direction: Direction) -> list[Threshold]:
    want = target_value(target, direction)
    return [(f"the target's {mb_s(want)}", want)] if want else []


def pool_thresholds(target: Target, direction: Direction, known: Sequence[Ceiling]) -> list[Threshold]:
    """The pool's figure against the target and every link or network ceiling already known in this
    direction: which of them is lowest names the bottleneck."""
    out = _target(target, direction)
    for c in known:
        if c.direction == direction and c.component in ("link", "network"):
            out.append((f"the {c.component} ceiling {mb_s(c.bytes_per_s)}", c.bytes_per_s))
    return out


def smb_thresholds(target: Target, direction: Direction, known: Sequence[Ceiling]) -> list[Threshold]:
    """SMB's figure against the target (beat or lose) and SMB_FAR_BELOW_RATIO of the lowest of pool, link
    and network (below it, SMB itself is named the bottleneck)."""
    out = _target(target, direction)
    bound = chain_bound([c for c in known if c.direction == direction])
    if bound is not None:
        out.append((f"{100 * SMB_FAR_BELOW_RATIO:.0f}% of the {bound.component} ceiling {mb_s(bound.bytes_per_s)}",
                    SMB_FAR_BELOW_RATIO * bound.bytes_per_s))
    return out
