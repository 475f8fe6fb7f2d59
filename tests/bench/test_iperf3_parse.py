"""iperf3 -J parsing on recorded real output (tests/fixtures/iperf3, recorded on the lab)."""
from pathlib import Path

import pytest

from tengig.bench.parse.iperf3_parse import parse_iperf3_json
from tengig.errors import ToolOutputError

FIX = Path(__file__).parent.parent / "fixtures" / "iperf3"


def test_one_gigabit_run():
    r = parse_iperf3_json((FIX / "desk-nas-1g.json").read_text())
    assert r.receiver_bps == pytest.approx(941e6, rel=0.01)
    assert r.receiver_bytes > 500 * 10**6 and r.seconds == pytest.approx(5, abs=0.2)
    assert r.streams == 1 and r.reverse is False and r.mss == 1448
    assert r.version == "iperf 3.12"


def test_hundred_megabit_run():
    r = parse_iperf3_json((FIX / "lab-nas-100m.json").read_text())
    assert r.receiver_bps == pytest.approx(94.1e6, rel=0.01)


def test_refused_connection_exits_zero_but_is_an_error():
    with pytest.raises(ToolOutputError, match="unable to connect"):
        parse_iperf3_json((FIX / "refused.json").read_text())


def test_notes_before_json_are_skipped():
    text = "warning: something\n" + (FIX / "desk-nas-1g.json").read_text()
    assert parse_iperf3_json(text).receiver_bps > 0


@pytest.mark.parametrize("text", ["", "iperf3: error - unable to send control message", '{"start": {}, "end": {}}', "{broken"])
def test_no_result_is_never_a_number(text):
    with pytest.raises(ToolOutputError):
        parse_iperf3_json(text)


def test_zero_bytes_received_is_refused():
    import json

    doc = json.loads((FIX / "desk-nas-1g.json").read_text())
    doc["end"]["sum_received"]["bytes"] = 0
    with pytest.raises(ToolOutputError, match="zero bytes"):
        parse_iperf3_json(json.dumps(doc))


# -- retransmits, counted by the side that sent (tests/fixtures/iperf3/README.md: 2% of the packets lost on the way) --

def test_the_nas_server_of_a_read_counts_its_own_retransmits():
    from tengig.bench.parse.iperf3_parse import parse_iperf3_server

    served = parse_iperf3_server((FIX / "lossy-read-server.json").read_text())
    assert served.reverse is True and served.bytes == 342097920
    assert served.retransmits == 4950  # the NAS sent, and resent what was lost on the way to desk


def test_a_server_that_received_has_no_retransmits_of_its_own():
    from tengig.bench.parse.iperf3_parse import parse_iperf3_server

    assert parse_iperf3_server((FIX / "lossy-write-server.json").read_text()).retransmits is None
    assert parse_iperf3_server((FIX / "joined-read-server.json").read_text()).retransmits == 0  # a clean path


def _link(mtu: int = 1500):
    from tengig.bench.phases.network import LinkUnderTest

    return LinkUnderTest(name="desk-nas", client="desk", server="nas", server_address="10.0.0.1",
                         client_address="10.0.0.2", line_rate_bps=10**9, mtu=mtu)


def test_a_read_takes_the_nas_servers_count_as_a_share_of_the_segments_it_sent():
    from tengig.bench.parse.iperf3_parse import parse_iperf3_server
    from tengig.bench.phases.network import to_measurement

    client = (FIX / "lossy-read-client.json").read_text()
    served = parse_iperf3_server((FIX / "lossy-read-server.json").read_text()).model_copy(update={"retransmits": 4000})
    m = to_measurement(_link(), parse_iperf3_json(client), "read", client, served=served)
    assert m.retransmits == 4000 and m.retransmits_by == "nas's own iperf3 server"
    assert m.segments_sent == 236256  # 342,097,920 bytes / MSS 1448 (MTU 1500 less IPv4, TCP and timestamps)
    assert m.retransmit_share == pytest.approx(4000 / 236256)
    assert m.retransmits_text() == ("retransmits 4,000 of 236,256 segments sent (1.69%, counted by nas's own iperf3 "
                                    "server, the sender)")


def test_a_read_without_the_nas_servers_report_has_no_count_the_receivers_word_is_not_taken():
    from tengig.bench.phases.network import to_measurement

    client = (FIX / "lossy-read-client.json").read_text()
    m = to_measurement(_link(), parse_iperf3_json(client), "read", client)
    assert (m.retransmits, m.segments_sent, m.retransmits_by, m.retransmit_share) == (None, None, None, None)
    assert m.retransmits_text() == "retransmits unknown (the sender's count was not read)"


def test_a_run_stored_before_the_counter_was_named_says_no_none():
    """A report read back from a run recorded before retransmits_by existed (tests/fixtures/results): its count
    is printed as it was, never "counted by None"."""
    from tengig.bench.phases.network import NetMeasurement

    m = NetMeasurement(link="desk-nas", direction="read", streams=1, goodput_bps=0.938e9, bytes=1, seconds=10,
                       retransmits=3, mss=None, cpu_client_percent=None, cpu_server_percent=None, ceiling_bps=None,
                       percent_of_ceiling=None)
    assert m.retransmits_text() == "retransmits 3"
    with_share = m.model_copy(update={"segments_sent": 300})
    assert with_share.retransmits_text() == "retransmits 3 of 300 segments sent (1.00%)"


def test_a_write_takes_the_desktops_count_it_sent():
    from tengig.bench.phases.network import to_measurement

    client = (FIX / "lossy-write-client.json").read_text()
    m = to_measurement(_link(9000), parse_iperf3_json(client), "write", client)
    assert m.retransmits == 4660 and m.retransmits_by == "desk's iperf3 client"
    assert m.segments_sent == -(-346195080 // 8948)  # MSS at MTU 9000
    assert m.retransmit_share == pytest.approx(4660 / m.segments_sent)


def test_the_recorded_lossy_read_reaches_the_verdict_as_the_nas_count():
    from tengig.bench.parse.iperf3_parse import parse_iperf3_server
    from tengig.bench.phases.network import path_retransmits, to_measurement
    from tengig.verdict.judge import judge
    from tengig.verdict.models import Facts
    from tengig.verdict.targets import find_target

    client = (FIX / "lossy-read-client.json").read_text()
    served = parse_iperf3_server((FIX / "lossy-read-server.json").read_text())
    read = to_measurement(_link(), parse_iperf3_json(client), "read", client, served=served)
    [counted] = path_retransmits([read])
    assert (counted.direction, counted.retransmits, counted.segments) == ("read", 4950, 236256)
    verdict = judge(find_target("hdd-15k-best"), [], Facts(link_negotiated_bps=10**9, net_retransmits=[counted]))
    assert ("the path loses packets: nas's own iperf3 server (the sender) resent 2.10% of the segments it sent "
            "(4,950 of 236,256, 1 stream)") in verdict.summary
