"""A path that loses packets (pure): the sender's TCP resends what was lost, and the share of the segments it
sent again says how lossy the path is, whatever the throughput did. TCP hides loss well on a short path (one
stream over the lab's 1 Gb/s link losing 2% on the way still carried 913 Mb/s), so a full link is no proof of a
clean one; the loss still costs latency, and more throughput on a longer or faster path.

Clean, the lab's shaped links (1 and 10 Gb/s, 1 and 4 streams, cubic and bbr) resent at most 0.02% of their
segments; with 2% of the packets lost on the way, 1.8-2.1%. LOSSY_SHARE sits between, at 1 in 1,000: by TCP's
loss-throughput relation (rate ~ MSS / RTT x 1.22 / sqrt(loss)) one stream at 0.1% loss and a 1 ms round trip
is held near 450 Mb/s."""
from __future__ import annotations

from .models import Direction, Facts, PathRetransmits

LOSSY_SHARE = 0.001


def lossy(facts: Facts, direction: Direction) -> list[PathRetransmits]:
    """The direction's tests whose sender resent LOSSY_SHARE or more of its segments, fewest streams first."""
    return sorted((t for t in facts.net_retransmits if t.direction == direction and t.share >= LOSSY_SHARE),
                  key=lambda t: t.streams)


def _test(t: PathRetransmits) -> str:
    return f"{t.retransmits:,} of {t.segments:,}, {_streams(t)}"


def loss_text(facts: Facts, direction: Direction) -> str | None:
    """'the path loses packets: nas's own iperf3 server (the sender) resent 2.10% of the segments it sent (4,950
    of 236,256, 1 stream; 1.79%, 4,288 of 239,716, 4 streams)'; None when the path is clean or not counted."""
    found = lossy(facts, direction)
    if not found:
        return None
    first, rest = found[0], found[1:]
    senders = {t.sender for t in found}
    who = first.sender if len(senders) == 1 else " and ".join(sorted(senders))
    more = "".join(f"; {100 * t.share:.2f}%, {_test(t)}" for t in rest)
    return (f"the path loses packets: {who} (the sender) resent {100 * first.share:.2f}% of the segments it sent "
            f"({_test(first)}{more})")


def _streams(t: PathRetransmits) -> str:
    return f"{t.streams} stream{'s' if t.streams > 1 else ''}"


def loss_advice(facts: Facts) -> str | None:
    """The advice's text for every lossy direction ('read: 2.10% of the segments nas's own iperf3 server sent
    (1 stream), 1.79% (4 streams)'), or None."""
    parts = []
    for direction in ("read", "write"):
        found = lossy(facts, direction)
        if found:
            first = found[0]
            more = "".join(f", {100 * t.share:.2f}% ({_streams(t)})" for t in found[1:])
            parts.append(f"{direction}: {100 * first.share:.2f}% of the segments {first.sender} sent "
                         f"({_streams(first)}){more}")
    if not parts:
        return None
    return (f"the path loses packets ({'; '.join(parts)}; a clean link resends under {100 * LOSSY_SHARE:.1f}%): TCP "
            "resends what was lost and slows down for it, which costs throughput even where the figures still look "
            "full (more over a longer or faster path) and latency always; check the cable and its connectors, the "
            "NICs' and the switch port's error counters (ethtool -S on Linux, the switch's port statistics), duplex, "
            "and a failing transceiver, then measure again")
