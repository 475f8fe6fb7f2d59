"""Advice rules: each fires on its case, stays quiet otherwise, and names its numbers with units."""
import re

import pytest

from tengig.verdict.advice import advise, mb_s
from tengig.verdict.ceilings import tcp_goodput_bps
from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts
from tengig.verdict.targets import find_target

MB = 10**6
G = 10**9
HDD = find_target("hdd-15k-best")
UNIT = re.compile(r"\d (MB/s|Gb/s|Mb/s|bytes)")


def c(component, direction, bytes_per_s, provenance="measured"):
    return Ceiling(component=component, direction=direction, bytes_per_s=bytes_per_s, provenance=provenance, label=component)


def link(rate_bps, direction="read", mtu=1500):
    return c("link", direction, tcp_goodput_bps(rate_bps, mtu) / 8, "estimated")


def rules(target, ceilings, facts=None):
    return {a.rule: a for a in judge(target, ceilings, facts or Facts()).advice}


def test_mb_s_keeps_the_100m_ceiling_digits():
    assert mb_s(tcp_goodput_bps(100_000_000) / 8) == "11.77 MB/s"
    assert mb_s(tcp_goodput_bps(1 * G) / 8) == "117.7 MB/s"
    assert mb_s(tcp_goodput_bps(10 * G) / 8) == "1176.9 MB/s"


def test_link_negotiated_low_names_both_speeds():
    got = rules(HDD, [c("pool", "read", 400 * MB)], Facts(link_negotiated_bps=100_000_000, link_capable_bps=1 * G))
    text = got["link-negotiated-low"].text
    assert text.startswith("the link negotiated 100 Mb/s but the NICs can do 1 Gb/s")
    assert "11.77 MB/s instead of 117.7 MB/s" in text and "field report 003 in docs/physics.md §8" in text
    assert got["link-negotiated-low"].severity == "critical"


@pytest.mark.parametrize("facts", [Facts(link_negotiated_bps=G, link_capable_bps=G), Facts(link_negotiated_bps=G), Facts()])
def test_link_negotiated_low_quiet_when_at_capability_or_unknown(facts):
    assert "link-negotiated-low" not in rules(HDD, [c("pool", "read", 400 * MB)], facts)


def test_1g_can_never_beat_the_15k_hdd_but_2_5g_can():
    text = rules(HDD, [link(1 * G)], Facts(link_negotiated_bps=G))["link-below-target"].text
    assert "the 1 Gb/s link carries at most 117.7 MB/s (estimated)" in text
    assert "can never beat" in text and "223.4 MB/s read" in text
    assert "a 2.5 Gb/s link (294.2 MB/s TCP goodput at MTU 1500 bytes) can" in text
    assert "link-below-target" not in rules(HDD, [link(2.5 * G)])


def test_sata_ssd_needs_10g_and_nvme_needs_more_than_25g_or_multichannel():
    ssd = rules(find_target("ssd-sata-870-evo"), [link(1 * G), link(1 * G, "write")])["link-below-target"].text
    assert "560.0 MB/s read, 530.0 MB/s write" in ssd
    assert "a 10 Gb/s link (1176.9 MB/s" in ssd and "multichannel" not in ssd  # 5 GbE's 588 MB/s leaves no headroom
    nvme = rules(find_target("nvme-pcie4-990-pro"), [link(10 * G)])["link-below-target"].text
    assert "a 100 Gb/s link" in nvme
    assert "SMB multichannel over 3 x 25 Gb/s NICs" in nvme and "not a LAGG" in nvme


def test_link_below_target_ignores_a_direction_the_target_has_no_figure_for():
    assert "link-below-target" not in rules(HDD, [link(1 * G, "write")])


def test_mtu_mismatch_names_mtus_and_the_df_ping_size():
    got = rules(HDD, [link(10 * G)], Facts(mtus={"nas:eth1": 9000, "desk:eth0": 1500}))
    text = got["mtu-mismatch"].text
    assert "desk:eth0 1500 bytes, nas:eth1 9000 bytes" in text
    assert "ping -M do -s 8972" in text and "MTU-28 bytes" in text
    assert "mtu-mismatch" not in rules(HDD, [link(10 * G)], Facts(mtus={"nas:eth1": 9000, "desk:eth0": 9000}))


def test_single_stream_low_on_seed_000_numbers():
    text = rules(HDD, [link(10 * G)], Facts(net_single_stream_bps=5.34e9, net_multi_stream_bps=9.6e9))["single-stream-low"].text
    assert "one TCP stream reached 5.34 Gb/s (667.5 MB/s), several streams 9.6 Gb/s (1200.0 MB/s)" in text
    assert "56%" in text and "multichannel" in text
    assert "single-stream-low" not in rules(HDD, [link(10 * G)], Facts(net_single_stream_bps=8e9, net_multi_stream_bps=9.6e9))


def test_pool_below_network_per_direction():
    ceilings = [c("pool", "read", 1500 * MB), c("pool", "write", 50 * MB), link(10 * G), link(10 * G, "write")]
    text = rules(HDD, ceilings)["pool-below-network"].text
    assert "pool write 50.00 MB/s < link 1176.9 MB/s (estimated)" in text
    assert "pool read" not in text
    assert "pool-below-network" not in rules(HDD, [c("pool", "read", 580 * MB), link(1 * G)])


def test_pool_below_network_prefers_the_measured_network():
    ceilings = [c("pool", "read", 500 * MB), link(10 * G), c("network", "read", 400 * MB)]
    assert "pool-below-network" not in rules(HDD, ceilings)


def test_smb_far_below_with_smbd_cpu_and_crypto_notes():
    ceilings = [c("pool", "read", 400 * MB), link(10 * G), c("smb", "read", 120 * MB)]
    facts = Facts(smbd_cpu_percent=98, smb_encryption=True, smb_signing=False)
    got = rules(HDD, ceilings, facts)
    far = got["smb-far-below"].text
    assert "SMB read 120.0 MB/s is 30% of the 400.0 MB/s the pool allows" in far
    assert "smbd used 98% of one core" in far
    assert got["smb-encryption"].severity == "info" and "SMB read 120.0 MB/s" in got["smb-encryption"].text
    assert "smb-signing" not in got


def test_crypto_notes_stay_quiet_when_smb_is_not_the_bottleneck():
    ceilings = [c("pool", "read", 400 * MB), link(1 * G), c("smb", "read", 112 * MB)]
    got = rules(HDD, ceilings, Facts(smb_encryption=True, smb_signing=True))
    assert not {"smb-far-below", "smb-encryption", "smb-signing"} & set(got)


@pytest.mark.parametrize("proto", ["LACP", "lacp", "LOADBALANCE"])
def test_lagg_single_flow(proto):
    text = rules(HDD, [link(10 * G)], Facts(lagg_protocol=proto, lagg_members=2, link_negotiated_bps=10 * G))["lagg-single-flow"].text
    assert "one flow (one SMB connection) never exceeds one member (10 Gb/s, 1176.9 MB/s goodput, estimated)" in text
    assert "SMB multichannel does not work over a LAGG" in text


def test_lagg_failover_is_redundancy_and_other_cases_are_quiet():
    failover = rules(HDD, [link(G)], Facts(lagg_protocol="FAILOVER", lagg_members=2))["lagg-single-flow"].text
    assert "one member at a time" in failover and "redundancy, not speed" in failover
    assert "lagg-single-flow" not in rules(HDD, [link(G)], Facts(lagg_protocol="LACP", lagg_members=1))
    assert "lagg-single-flow" not in rules(HDD, [link(G)], Facts(lagg_protocol="ROUNDROBIN", lagg_members=2))


def test_every_rule_at_once_in_a_stable_order_each_with_units():
    ceilings = [c("pool", "read", 10 * MB), c("smb", "read", 2 * MB)]
    facts = Facts(
        link_negotiated_bps=100_000_000,
        link_capable_bps=10 * G,
        mtus={"nas:eth1": 9000, "desk:eth0": 1500},
        net_single_stream_bps=1e6,
        net_multi_stream_bps=9e7,
        smb_signing=True,
        smb_encryption=True,
        lagg_protocol="LACP",
        lagg_members=2,
    )
    v = judge(HDD, ceilings, facts)
    assert [a.rule for a in v.advice] == [
        "link-negotiated-low",
        "link-below-target",
        "mtu-mismatch",
        "single-stream-low",
        "pool-below-network",
        "smb-far-below",
        "smb-encryption",
        "smb-signing",
        "lagg-single-flow",
    ]
    for a in v.advice:
        assert UNIT.search(a.text), (a.rule, a.text)


def test_advise_works_from_raw_ceilings_without_judged_directions():
    got = advise(HDD, [link(1 * G), c("pool", "read", 50 * MB)], Facts(), [])
    assert [a.rule for a in got] == ["link-below-target", "pool-below-network"]


def test_no_advice_when_nothing_is_wrong():
    ceilings = [c("pool", "read", 1500 * MB), link(10 * G), c("network", "read", 1170 * MB), c("smb", "read", 1100 * MB)]
    facts = Facts(link_negotiated_bps=10 * G, link_capable_bps=10 * G, mtus={"a": 1500, "b": 1500})
    assert rules(HDD, ceilings, facts) == {}
