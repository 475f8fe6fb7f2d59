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
