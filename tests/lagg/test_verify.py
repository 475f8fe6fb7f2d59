"""A measurement read against its plan: seed 002's own numbers, a hash that put everything on one
member, and `ip -s -j link` counters (this machine's real output for the shape, synthetic deltas)."""
import json
from pathlib import Path

import pytest

from tengig.errors import ToolOutputError, ValidationError
from tengig.backends.linux.link_stats import parse_ip_link_stats
from tengig.lagg import analyse, counter_window, plan_lagg

from .layouts import seed002

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lagg"
GB = 10**9


def _window(direction, flows, a, b, names=("ix0", "ix2")):
    key = "tx_bytes" if direction == "read" else "rx_bytes"
    other = "rx_bytes" if key == "tx_bytes" else "tx_bytes"
    return {"direction": direction, "flows": flows,
            "members": [{"name": names[0], key: a, other: a // 50}, {"name": names[1], key: b, other: b // 50}]}


def test_seed002_numbers_against_the_round_robin_plan():
    plan = plan_lagg(seed002("truenas-core"))
    verdict = analyse(plan, {
        "results": [{"direction": "read", "flows": 5, "bps": 18.2 * GB}, {"direction": "write", "flows": 5, "bps": 11.8 * GB}],
        "counters": [_window("read", 5, 11_400 * 10**6, 11_350 * 10**6), _window("write", 5, 13_900 * 10**6, 900 * 10**6)],
    })
    read, write = verdict.comparisons
    assert (read.status, round(read.percent_of_expected)) == ("as-expected", 92)
    assert (write.status, round(write.percent_of_expected)) == ("above", 119)
    assert "relearning" in write.reason
    read_balance, write_balance = verdict.balance
    assert [s.share for s in read_balance.shares] == pytest.approx([0.5011, 0.4989], abs=1e-4)
    assert read_balance.skew == 1.0 and read_balance.cv < 0.01 and read_balance.idle == []
    assert write_balance.skew == pytest.approx(15.44) and write_balance.shares[0].share > 0.9
    assert verdict.summary.splitlines() == [
        "read 5 flows: 18.2 Gb/s of 19.8 Gb/s expected (92%), as-expected; ix0 50%, ix2 50%",
        "write 5 flows: 11.8 Gb/s of 9.9 Gb/s expected (119%), above; ix0 94%, ix2 6%"]


def test_a_hash_that_put_every_flow_on_one_member():
    plan = plan_lagg(seed002("truenas-scale"))  # LOADBALANCE, LAYER3+4
    names = ("enp3s0f0", "enp4s0f0")
    verdict = analyse(plan, {
        "results": [{"direction": "read", "flows": 5, "bps": 9.6 * GB}],
        "counters": [_window("read", 5, 12_000 * 10**6, 60 * 10**6, names)],
    })
    (result,) = verdict.comparisons
    assert result.status == "low-end"
    assert "enp3s0f0 carried 100% of the bytes: the hash (LAYER3+4) put the flows on one member" in result.reason


def test_one_flow_under_one_link_points_at_mtu_speed_and_cpu():
    plan = plan_lagg(seed002("truenas-scale"))
    (result,) = analyse(plan, {"results": [{"direction": "read", "flows": 1, "bps": 4 * GB}]}).comparisons
    assert result.status == "below" and "don't-fragment ping" in result.reason


def test_counters_of_a_port_that_is_not_a_member_are_refused():
    plan = plan_lagg(seed002("truenas-core"))
    with pytest.raises(ValidationError) as info:
        analyse(plan, {"results": [{"direction": "read", "flows": 5, "bps": GB}],
                       "counters": [_window("read", 5, 1, 1, ("ix0", "ix3"))]})
    assert info.value.errors[0][0] == "counters.0.members.1.name"


def test_members_that_moved_nothing_are_an_error_not_a_zero():
    plan = plan_lagg(seed002("truenas-core"))
    with pytest.raises(ToolOutputError, match="moved no bytes"):
        analyse(plan, {"results": [{"direction": "read", "flows": 5, "bps": GB}], "counters": [_window("read", 5, 0, 0)]})


def test_parse_this_machines_ip_link_output():
    counters = parse_ip_link_stats((FIXTURES / "ip-s-j-link.this-machine.json").read_text())
    assert "lo" in counters
    rx, tx = counters["lo"]
    assert isinstance(rx, int) and rx > 0 and rx == tx  # loopback receives what it sends


def _snapshot(values: dict[str, tuple[int, int]]) -> str:
    return json.dumps([{"ifname": name, "stats64": {"rx": {"bytes": rx}, "tx": {"bytes": tx}}}
                       for name, (rx, tx) in values.items()])


def test_counter_window_deltas_and_refusals():
    before = parse_ip_link_stats(_snapshot({"ix0": (100, 1_000), "ix2": (50, 2_000), "igb0": (5, 5)}))
    after = parse_ip_link_stats(_snapshot({"ix0": (300, 9_000), "ix2": (60, 2_500), "igb0": (9, 9)}))
    window = counter_window(before, after, ["ix0", "ix2"], direction="read", flows=5)
    assert [(m.name, m.rx_bytes, m.tx_bytes) for m in window.members] == [("ix0", 200, 8_000), ("ix2", 10, 500)]
    with pytest.raises(ToolOutputError, match="went backwards"):
        counter_window(after, before, ["ix0"], direction="read", flows=1)
    with pytest.raises(ToolOutputError, match="ix3 is missing"):
        counter_window(before, after, ["ix3"], direction="read", flows=1)
    with pytest.raises(ToolOutputError, match="no JSON"):
        parse_ip_link_stats("Device not found")
