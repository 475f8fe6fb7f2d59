"""The verdict: win/lose and margin per direction, the bottleneck, the summary (issue 3, "Must show")."""
import pytest

from tengig.errors import ValidationError
from tengig.verdict.ceilings import tcp_goodput_bps
from tengig.verdict.judge import NETWORK_AT_LINK_RATIO, bottleneck, judge
from tengig.verdict.models import Ceiling, Facts
from tengig.verdict.targets import find_target

MB = 10**6
MiB = 2**20
G = 10**9
HDD = find_target("hdd-15k-best")


def c(component, direction, bytes_per_s, provenance="measured", label=None):
    return Ceiling(
        component=component,
        direction=direction,
        bytes_per_s=bytes_per_s,
        provenance=provenance,
        label=label or f"{component} {direction}",
    )


def link(rate_bps, direction="read", mtu=1500):
    return c("link", direction, tcp_goodput_bps(rate_bps, mtu) / 8, "estimated", f"link {rate_bps} goodput")


def read_dir(verdict):
    return next(d for d in verdict.directions if d.direction == "read")


def test_desk_nas_at_1g_loses_to_the_15k_hdd_and_names_the_link():
    ceilings = [c("pool", "read", 400 * MB), link(1 * G), c("smb", "read", 110 * MiB)]
    v = judge(HDD, ceilings, Facts(link_negotiated_bps=1 * G, link_capable_bps=1 * G))
    r = read_dir(v)
    assert r.smb_bytes_per_s == 110 * MiB
    assert r.target_bytes_per_s == pytest.approx(223.4 * MB)
    assert r.beats_target is False
    assert r.margin_percent == pytest.approx((110 * MiB - 223.4e6) / 223.4e6 * 100)
    assert r.margin_percent == pytest.approx(-48.4, abs=0.05)
    assert r.bottleneck == "link"
    assert "link-below-target" in [a.rule for a in v.advice]
    assert "SMB read 115.3 MB/s loses to 223.4 MB/s by 48.4%" in v.summary
    assert "the link at 1 Gb/s, ceiling 117.7 MB/s (estimated)" in v.summary
    assert "10^6 bytes/s" in v.summary


def test_measured_network_near_the_link_goodput_is_the_link_at_work():
    goodput = tcp_goodput_bps(1 * G) / 8
    ceilings = [c("pool", "read", 400 * MB), link(1 * G), c("network", "read", 0.97 * goodput), c("smb", "read", 110 * MiB)]
    assert judge(HDD, ceilings, Facts()).directions[0].bottleneck == "link"


def test_network_well_below_the_link_is_the_network():
    # A 10 Gb/s link whose iperf3 shows only 5 Gb/s: something between the NICs (or in them) is the limit.
    ceilings = [c("pool", "read", 2000 * MB), link(10 * G), c("network", "read", 5 * G / 8), c("smb", "read", 600 * MB)]
    v = judge(HDD, ceilings, Facts())
    assert read_dir(v).bottleneck == "network"
    assert "the network, ceiling 625.0 MB/s (5 Gb/s)" in v.summary
    assert 5 * G / 8 < NETWORK_AT_LINK_RATIO * tcp_goodput_bps(10 * G) / 8


def test_10g_with_a_slow_pool_names_the_pool():
    ceilings = [
        c("pool", "read", 50 * MB),
        link(10 * G),
        c("network", "read", 9.4 * G / 8),
        c("smb", "read", 48 * MB),
    ]
    v = judge(HDD, ceilings, Facts(link_negotiated_bps=10 * G, link_capable_bps=10 * G))
    r = read_dir(v)
    assert r.bottleneck == "pool"
    assert r.beats_target is False
    assert "pool-below-network" in [a.rule for a in v.advice]
    assert "link-below-target" not in [a.rule for a in v.advice]
    assert "the pool, ceiling 50.00 MB/s" in v.summary


def test_100m_link_states_the_11_77_ceiling():
    ceilings = [c("pool", "read", 400 * MB), link(100_000_000), c("smb", "read", 11.2 * MB)]
    v = judge(HDD, ceilings, Facts(link_negotiated_bps=100_000_000))
    assert read_dir(v).bottleneck == "link"
    assert "the link at 100 Mb/s, ceiling 11.77 MB/s (estimated)" in v.summary
    below = next(a for a in v.advice if a.rule == "link-below-target")
    assert "11.77 MB/s" in below.text


def test_smb_far_below_the_chain_is_smb_itself():
    ceilings = [c("pool", "read", 400 * MB), link(10 * G), c("network", "read", 1150 * MB), c("smb", "read", 120 * MB)]
    v = judge(HDD, ceilings, Facts(link_negotiated_bps=10 * G))
    assert read_dir(v).bottleneck == "smb"
    assert "smb-far-below" in [a.rule for a in v.advice]
    assert "SMB itself" in v.summary and "30% of the 400.0 MB/s the pool allows" in v.summary


def test_smb_just_above_the_far_below_line_is_not_blamed():
    ceilings = [c("pool", "read", 400 * MB), link(10 * G), c("smb", "read", 281 * MB)]
    v = judge(HDD, ceilings, Facts())
    assert read_dir(v).bottleneck == "pool"
    assert "smb-far-below" not in [a.rule for a in v.advice]


def test_target_without_a_write_figure():
    ceilings = [c("pool", "write", 300 * MB), link(1 * G, "write"), c("smb", "write", 105 * MB)]
    v = judge(HDD, ceilings, Facts())
    (w,) = v.directions
    assert w.direction == "write"
    assert w.target_bytes_per_s is None and w.beats_target is None and w.margin_percent is None
    assert w.smb_bytes_per_s == 105 * MB
    assert w.bottleneck == "link"
    assert "SMB write 105.0 MB/s, no write figure for this target" in v.summary


def test_seed_000_mesh_beats_the_15k_hdd_by_about_25_percent():
    # 10G switchless mesh: Windows copy read 280 MB/s, pool ~580 MB/s locally, iperf3 9.6 Gb/s with many streams.
    ceilings = [
        c("pool", "read", 580 * MB),
        link(10 * G),
        c("network", "read", 9.4 * G / 8),
        c("smb", "read", 280 * MB),
        c("smb", "write", 240 * MB),
        c("pool", "write", 500 * MB),
    ]
    v = judge(HDD, ceilings, Facts(link_negotiated_bps=10 * G, net_single_stream_bps=5.34e9, net_multi_stream_bps=9.6e9))
    r = read_dir(v)
    assert r.beats_target is True
    assert r.margin_percent == pytest.approx(25.3, abs=0.1)
    assert "SMB read 280.0 MB/s beats 223.4 MB/s by 25.3%" in v.summary
    # 280 MB/s is under 70% of the 580 MB/s pool: a single Windows copy is SMB/client-bound, not disk-bound.
    assert r.bottleneck == "smb"
    assert "single-stream-low" in [a.rule for a in v.advice]


def test_no_smb_measurement_still_names_an_estimated_bottleneck():
    v = judge(HDD, [c("pool", "read", 400 * MB)], Facts(link_negotiated_bps=1 * G))
    r = read_dir(v)
    assert r.smb_bytes_per_s is None and r.beats_target is None and r.margin_percent is None
    assert r.bottleneck == "link"
    assert "SMB read not measured" in v.summary
    assert "bottleneck (estimated, SMB not measured): the link at 1 Gb/s" in v.summary
    assert "at most 117.7 MB/s (estimated)" in v.summary


def test_an_estimated_smb_figure_never_beats_a_target():
    v = judge(HDD, [c("pool", "read", 900 * MB), c("smb", "read", 900 * MB, "estimated")], Facts())
    r = read_dir(v)
    assert r.smb_bytes_per_s is None and r.beats_target is None


def test_ceilings_come_back_in_chain_order_per_direction():
    ceilings = [
        c("smb", "read", 100 * MB),
        c("network", "read", 110 * MB),
        c("pool", "write", 90 * MB),
        link(1 * G),
        c("pool", "read", 400 * MB),
    ]
    v = judge(HDD, ceilings, Facts())
    assert [d.direction for d in v.directions] == ["read", "write"]
    assert [x.component for x in read_dir(v).ceilings] == ["pool", "link", "network", "smb"]
    assert [x.component for x in v.directions[1].ceilings] == ["pool"]


def test_link_estimate_added_from_facts_only_where_missing():
    given = link(10 * G)
    v = judge(HDD, [given, c("pool", "write", 90 * MB)], Facts(link_negotiated_bps=1 * G, mtus={"a": 9000, "b": 9000}))
    read_links = [x for x in read_dir(v).ceilings if x.component == "link"]
    assert read_links == [given]
    (write_link,) = [x for x in v.directions[1].ceilings if x.component == "link"]
    assert write_link.provenance == "estimated"
    assert write_link.bytes_per_s == pytest.approx(tcp_goodput_bps(1 * G, 9000) / 8)


def test_a_measurement_outranks_an_estimate_of_the_same_component():
    ceilings = [c("pool", "read", 1000 * MB, "estimated"), c("pool", "read", 300 * MB), link(10 * G), c("smb", "read", 290 * MB)]
    v = judge(HDD, ceilings, Facts())
    assert read_dir(v).bottleneck == "pool"
    assert "the pool, ceiling 300.0 MB/s;" in v.summary or "the pool, ceiling 300.0 MB/s. How sure" in v.summary


def test_bottleneck_unknown_without_pool_link_or_network():
    assert bottleneck([c("smb", "read", 100 * MB)]) is None
    v = judge(HDD, [c("smb", "read", 100 * MB)], Facts())
    assert read_dir(v).bottleneck is None
    assert "bottleneck unknown" in v.summary


def test_nothing_to_judge_is_an_error_not_a_zero():
    with pytest.raises(ValidationError) as exc:
        judge(HDD, [], Facts())
    assert exc.value.errors[0][0] == "ceilings"
