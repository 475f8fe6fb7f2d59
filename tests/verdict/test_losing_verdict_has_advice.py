"""A verdict that loses always says what to change (issue: "Nothing to change." under a verdict that lost by
1.5% on the link): whatever the chain, when measured SMB loses to the target in a direction and pool, link or
network bounds it, some advice names what would lift it."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts
from tengig.verdict.targets import find_target

MB = 10**6
TARGET = find_target("ssd-sata-870-evo")  # 560 MB/s read, 530 MB/s write
rates = st.floats(min_value=1 * MB, max_value=5000 * MB)
maybe = st.one_of(st.none(), rates)


@settings(max_examples=300, deadline=None)
@given(pool=maybe, link=maybe, network=maybe, smb=rates, estimated_link=st.booleans(), ports=st.integers(0, 4))
def test_a_losing_direction_gets_advice(pool, link, network, smb, estimated_link, ports):
    chain = [Ceiling(component=c, direction="read", bytes_per_s=v, label=c,
                     provenance="estimated" if c == "link" and estimated_link else "measured")
             for c, v in (("pool", pool), ("link", link), ("network", network)) if v is not None]
    if not chain:
        return  # nothing but SMB: there is no chain to judge it against
    verdict = judge(TARGET, [*chain, Ceiling(component="smb", direction="read", bytes_per_s=smb, label="smb",
                                              provenance="measured")],
                    Facts(nas_ports_bps=[10**9] * ports))
    [read] = verdict.directions
    if read.beats_target is False:
        assert verdict.advice, verdict.summary
