"""A path that loses packets is a cause in the verdict with its number (retransmits per direction, as a share of
the segments the sender sent), even where the throughput still holds (pure: facts in, words and numbers out)."""
from tengig.verdict.ceilings import tcp_goodput_bps
from tengig.verdict.judge import judge
from tengig.verdict.loss import LOSSY_SHARE, lossy
from tengig.verdict.models import Ceiling, Facts, PathRetransmits
from tengig.verdict.targets import find_target

MB = 10**6
HDD = find_target("hdd-15k-best")
LINK_1G = tcp_goodput_bps(1e9, 1500) / 8  # 117.7 MB/s


def ceilings(direction="read", smb=110.0):
    return [Ceiling(component="pool", direction=direction, bytes_per_s=400 * MB, provenance="measured", label="pool"),
            Ceiling(component="network", direction=direction, bytes_per_s=117.6 * MB, provenance="measured",
                    label="iperf3"),
            Ceiling(component="smb", direction=direction, bytes_per_s=smb * MB, provenance="measured", label="smb")]


def sent(direction, streams, retransmits, segments=236_256, sender="nas's own iperf3 server"):
    return PathRetransmits(direction=direction, streams=streams, retransmits=retransmits, segments=segments,
                           sender=sender)


# the lab with 2% lost on the way to desk: the NAS resent 4,950 of 236,256 segments with one stream, and 4,288
# with four, while four streams still carried the link's full 941 Mb/s (tests/fixtures/iperf3/README.md)
LOSSY_READ = Facts(link_negotiated_bps=10**9, net_retransmits=[sent("read", 1, 4950), sent("read", 4, 4288, 239_716)])


def test_a_read_losing_two_percent_is_named_with_the_nas_count_though_the_link_is_full():
    v = judge(HDD, ceilings(), LOSSY_READ)
    read = v.directions[0]
    assert read.bottleneck == "link"  # the throughput holds: four streams filled the link ...
    # ... and the loss is said beside it, with the sender's own count as a share of what it sent
    assert ("the path loses packets: nas's own iperf3 server (the sender) resent 2.10% of the segments it sent "
            "(4,950 of 236,256, 1 stream; 1.79%, 4,288 of 239,716, 4 streams)") in v.summary
    [advice] = [a for a in v.advice if a.rule == "path-loses-packets"]
    assert advice.severity == "warning"
    assert "read: 2.10% of the segments nas's own iperf3 server sent (1 stream)" in advice.text
    assert "ethtool -S" in advice.text


def test_a_clean_path_says_nothing_of_loss():
    facts = Facts(net_retransmits=[sent("read", 1, 0), sent("read", 4, 47, 239_716), sent("write", 4, 3)])
    v = judge(HDD, ceilings() + ceilings("write"), facts)
    assert "loses packets" not in v.summary and not any(a.rule == "path-loses-packets" for a in v.advice)


def test_the_line_is_a_share_of_segments_not_a_count():
    # 300 retransmits are a lossy path in 100,000 segments and a clean one in 10,000,000
    assert lossy(Facts(net_retransmits=[sent("read", 1, 300, 100_000)]), "read")
    assert not lossy(Facts(net_retransmits=[sent("read", 1, 300, 10_000_000)]), "read")
    assert LOSSY_SHARE == 0.001


def test_each_direction_is_said_by_its_own_sender():
    facts = Facts(net_retransmits=[sent("read", 1, 0), sent("write", 1, 2000, 100_000, sender="desk's iperf3 client")])
    v = judge(HDD, ceilings() + ceilings("write"), facts)
    read, write = (next(d for d in v.summary.split("; SMB ") if d.startswith(w)) for w in ("Against", "write"))
    assert "loses packets" not in read
    assert ("the path loses packets: desk's iperf3 client (the sender) resent 2.00% of the segments it sent "
            "(2,000 of 100,000, 1 stream)") in write
