"""iperf3 as the lab measures its own links (a mesh, a LAGG), on the lab's shaped links: real iperf3,
both directions, 1 and N streams."""
import pytest

from tengig.bench.context import BenchContext
from tengig.bench.phases.network import measure
from tengig.errors import ToolOutputError
from tengig.lab.hosts import LabHosts, lab_link

pytestmark = pytest.mark.lab


def test_one_gigabit_link_both_directions_one_and_four_streams(shaped_lab):
    link = lab_link(shaped_lab, "desk")
    ctx = BenchContext(LabHosts(shaped_lab))
    results = [measure(ctx, link, direction=d, streams=n, seconds=3, omit=2)  # docs/physics.md §7: iperf3 -O 2
               for d, n in (("read", 1), ("write", 4))]
    assert [(r.direction, r.streams) for r in results] == [("read", 1), ("write", 4)]
    for r in results:
        assert r.ceiling_bps == pytest.approx(941e6, rel=1e-3)
        assert 0 < r.percent_of_ceiling <= 103, (r.direction, r.streams, r.goodput_bps)  # the shaper bounds it
        assert r.bytes > 0.9 * r.goodput_bps / 8 * r.seconds
    # every iperf3 client run is kept as raw output with the run (the listening polls are not)
    assert [r.tool for r in ctx.raw] == ["iperf3"] * 2 and all('"end"' in r.stdout for r in ctx.raw)


def test_server_that_cannot_start_is_an_error_not_a_number(shaped_lab):
    link = lab_link(shaped_lab, "desk").model_copy(update={"server_address": "10.250.99.1"})
    with pytest.raises(ToolOutputError, match="exited"):
        measure(BenchContext(LabHosts(shaped_lab)), link, direction="read", seconds=1, omit=0)
