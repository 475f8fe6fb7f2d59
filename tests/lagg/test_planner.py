"""plan_lagg on seed 001's and seed 002's layouts: protocol, members, expectations with reasons."""
import pytest

from tengig.lagg import plan_lagg
from tengig.verdict.ceilings import tcp_goodput_bps

from .layouts import ONE_G, TEN_G, edit, inventory, nic, seed001, seed002, shuffled

LINK_9000 = tcp_goodput_bps(TEN_G, 9000)  # 9.900 Gb/s


def _codes(items) -> list[str]:
    return [item.code for item in items]


def test_seed001_linux_two_cards_gives_about_20_gbps_on_one_flow():
    plan = plan_lagg(seed001("linux"))
    assert (plan.protocol, plan.protocol_native, plan.name) == ("ROUNDROBIN", "balance-rr", "bond1")
    assert [(m.name, m.card) for m in plan.members] == [("enp3s0f0", "0000:03:00"), ("enp4s0f0", "0000:04:00")]
    read_1 = plan.expected("read", 1)
    assert read_1.bps == pytest.approx(2 * LINK_9000) and read_1.multiple == 2.0
    assert read_1.low_bps == read_1.bps  # two cards: nothing shared
    assert "shared-card" not in _codes(plan.notes)
    skipped = {s.name: s.reason for s in plan.skipped}
    assert "carries this session" in skipped["eno1"]
    assert skipped["enp3s0f1"].startswith("spare")


def test_seed001_one_card_is_warned_about_14_gbps():
    plan = plan_lagg(seed001("linux", cards=1))
    assert [m.name for m in plan.members] == ["enp3s0f0", "enp3s0f1"]
    shared = [n for n in plan.notes if n.code == "shared-card"]
    assert len(shared) == 1 and shared[0].severity == "warning"
    assert "14 Gb/s" in shared[0].text and "add a card" in shared[0].text
    read_1 = plan.expected("read", 1)
    assert read_1.low_bps == pytest.approx(14e9)
    assert "share card 0000:03:00" in read_1.reason


def test_a_known_card_limit_becomes_the_expectation():
    plan = plan_lagg(edit(seed001("linux", cards=1), card_limits_bps={"0000:03:00": "14g"}))
    assert plan.expected("read", 1).bps == pytest.approx(14e9)


def test_pinned_members_on_one_card_are_a_warning_naming_the_free_card():
    plan = plan_lagg(edit(seed001("linux"), members=["enp3s0f0", "enp3s0f1"]))
    shared = next(n for n in plan.notes if n.code == "shared-card")
    assert "enp4s0f0, enp4s0f1 sit on other cards" in shared.text


def test_seed001_scale_is_lacp_and_one_flow_is_one_link():
    plan = plan_lagg(seed001("truenas-scale"))
    assert (plan.protocol, plan.xmit_hash_policy, plan.lacpdu_rate, plan.name) == ("LACP", "LAYER3+4", "FAST", "bond0")
    assert [m.card for m in plan.members] == ["0000:03:00", "0000:04:00"]
    assert plan.expected("read", 1).bps == pytest.approx(LINK_9000)
    assert "one flow gets at most one link" in plan.expected("read", 1).reason
    many = plan.expected("read", 4)
    assert plan.flows == 4 and LINK_9000 < many.bps < 2 * LINK_9000 and many.low_bps == pytest.approx(LINK_9000)
    assert plan.expected("write", 4).bps == many.bps  # the peer hashes back: symmetric
    assert "single-flow" in _codes(plan.notes)
    assert _codes(plan.alternatives) == ["smb-multichannel"]  # no round-robin on SCALE


def test_seed002_core_round_robin_reads_2x_writes_1x():
    plan = plan_lagg(seed002("truenas-core"))
    assert (plan.protocol, plan.protocol_native, plan.name) == ("ROUNDROBIN", "ROUNDROBIN", "lagg0")
    assert [m.name for m in plan.members] == ["ix0", "ix2"]
    read, write = plan.expected("read", 5), plan.expected("write", 5)
    assert (read.flows, read.multiple, write.multiple) == (5, 2.0, 1.0)
    assert read.bps == pytest.approx(2 * LINK_9000) and write.bps == pytest.approx(LINK_9000)
    assert "balances only what the NAS sends" in write.reason
    one_way = next(n for n in plan.notes if n.code == "one-way")
    assert "reads from the NAS ~2x, writes to it ~1x" in one_way.text
    assert plan.members[1].clear_config == ["address 10.99.0.5/24"]
    assert _codes(plan.alternatives) == ["lacp-switch"]


def test_seed002_linux_offers_balance_alb():
    plan = plan_lagg(seed002("linux"))
    assert plan.protocol_native == "balance-rr"
    assert _codes(plan.alternatives) == ["lacp-switch", "balance-alb"]
    assert "12.8 Gb/s" in plan.alternatives[1].why


def test_seed002_scale_is_loadbalance_with_the_single_flow_limit():
    plan = plan_lagg(seed002("truenas-scale"))
    assert (plan.protocol, plan.xmit_hash_policy, plan.lacpdu_rate) == ("LOADBALANCE", "LAYER3+4", None)
    assert "SCALE does not offer round-robin" in plan.protocol_reason
    read_1 = plan.expected("read", 1)
    assert read_1.bps == pytest.approx(LINK_9000) and "one flow gets at most one link" in read_1.reason
    read_5 = plan.expected("read", 5)
    assert read_5.bps == pytest.approx(2 * LINK_9000 * (1 - 0.5**5)) and read_5.low_bps == pytest.approx(LINK_9000)
    assert plan.expected("write", 5).multiple == 1.0
    assert "round-robin" not in _codes(plan.alternatives)


def test_clients_cap_what_the_lagg_can_give():
    plan = plan_lagg({**seed002("linux"), "client_count": 1, "client_link_bps": "1g", "flows": 1})
    assert plan.expected("read", 1).bps == pytest.approx(tcp_goodput_bps(ONE_G, 9000))


@pytest.mark.parametrize("platform, native", [
    ("truenas-scale", "FAILOVER"), ("truenas-core", "FAILOVER"), ("linux", "active-backup"), ("freebsd", "failover"),
])
def test_failover_goal(platform, native):
    plan = plan_lagg({**seed001(platform), "goal": "failover"})
    assert (plan.protocol, plan.protocol_native, plan.xmit_hash_policy) == ("FAILOVER", native, None)
    assert {t.multiple for t in plan.throughput} == {1.0}
    assert plan.alternatives == []


def test_lacp_switch_balances_writes_too():
    plan = plan_lagg({**seed002("linux"), "topology": "lacp-switch"})
    assert plan.protocol_native == "802.3ad"
    assert plan.expected("write", 5).bps == plan.expected("read", 5).bps > 1.5 * LINK_9000


def test_many_clients_on_an_unknown_switch_gets_no_round_robin():
    plan = plan_lagg({**seed002("freebsd"), "topology": "many-clients"})
    assert plan.protocol_native == "loadbalance"
    assert "round-robin" not in _codes(plan.alternatives)


def test_mixed_speeds_use_the_speed_that_adds_up_most():
    nics = inventory("linux") + [nic("enp5s0", "0000:05:00", speed=25 * 10**9)]
    plan = plan_lagg({**seed001("linux"), "nics": nics})
    assert [m.speed_bps for m in plan.members] == [TEN_G, TEN_G]
    assert "runs at 25 Gb/s" in {s.name: s.reason for s in plan.skipped}["enp5s0"]


def test_member_count_adds_ports_sharing_cards():
    plan = plan_lagg(edit(seed001("linux"), member_count=4))
    assert [m.name for m in plan.members] == ["enp3s0f0", "enp4s0f0", "enp3s0f1", "enp4s0f1"]
    assert plan.expected("read", 1).low_bps == pytest.approx(28e9)


def test_the_session_port_joins_only_when_confirmed_and_cleared():
    nics = [nic("enp3s0f0", "0000:03:00", addresses=["192.168.1.10/24"], carries_session=True),
            nic("enp4s0f0", "0000:04:00")]
    request = {"nics": nics, "platform": "truenas-scale", "topology": "lacp-switch", "goal": "failover",
               "options": {"address": "192.168.1.10/24", "confirm_session_interface": True, "clear_member_config": True}}
    plan = plan_lagg(request)
    assert [m.name for m in plan.members] == ["enp4s0f0", "enp3s0f0"]  # the caller's own port last
    assert plan.members[1].carries_session and plan.members[1].clear_config == ["address 192.168.1.10/24"]
    assert "session-interface" in _codes(plan.notes)


def test_default_names_skip_taken_ones():
    taken = inventory("truenas-scale") + [nic("bond0", None, kind="bond", speed=None)]
    assert plan_lagg({**seed001("truenas-scale"), "nics": taken}).name == "bond1"
    assert plan_lagg(seed001("freebsd")).name == "lagg0"


def test_shuffled_inventory_gives_the_same_plan():
    expected = plan_lagg(seed002("linux")).model_dump_json()
    for seed in range(5):
        assert plan_lagg(shuffled(seed002("linux"), seed)).model_dump_json() == expected
