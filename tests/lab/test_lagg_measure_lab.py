"""The LAGG measurement on the lab. This kernel has no bonding driver, so no bond exists here; the
measuring code is exercised on the NAS's two real ports as the "members" of a plan, with traffic sent
to the address of one of them: the counters must show that member carried everything and the other
nothing, which is exactly the single-member hashing the analysis is there to expose."""
import pytest

from tengig.bench.context import BenchContext
from tengig.lab.hosts import LabHosts
from tengig.backends.linux.link_stats import ip_link_bytes
from tengig.lagg.measure import measure_lagg
from tengig.lagg.models import LaggPlan

pytestmark = pytest.mark.lab


def _plan_over_nas_ports(shaped_lab) -> LaggPlan:
    def member(name, card):
        return {"name": name, "card": card, "speed_bps": 10**9, "goodput_bps": 941e6, "clear_config": [],
                "carries_session": False}
    doc = {
        "platform": "linux", "topology": "lacp-switch", "goal": "aggregate-many-clients", "name": "bond1",
        "protocol": "LACP", "protocol_native": "802.3ad", "protocol_reason": "lab", "xmit_hash_policy": "LAYER3+4",
        "lacpdu_rate": "FAST", "mtu": 1500, "address": None, "flows": 4,
        "members": [member("eth-desk", "a"), member("eth-lab", "b")],
        "throughput": [
            {"direction": d, "flows": f, "bps": 941e6 * (1 if f == 1 else 2), "low_bps": 941e6,
             "multiple": 1.0 if f == 1 else 2.0, "reason": "lab"} for d in ("read", "write") for f in (1, 4)],
        "alternatives": [], "skipped": [], "notes": [],
    }
    return LaggPlan.model_validate(doc)


def test_member_counters_show_which_member_carried_the_flows(shaped_lab):
    plan = _plan_over_nas_ports(shaped_lab)
    lab_plan = shaped_lab.plan()
    ctx = BenchContext(LabHosts(shaped_lab))
    request, verdict = measure_lagg(ctx, plan, nas="nas", port_bytes=ip_link_bytes, client="desk",
                                    lagg_address=lab_plan.address_of("nas", "desk"),
                                    client_address=lab_plan.address_of("desk", "nas"), seconds=2, omit=1)
    assert [(r.direction, r.flows) for r in request.results] == [("read", 1), ("write", 1), ("read", 4), ("write", 4)]
    for r in request.results:
        assert 0 < r.bps <= 1.03 * 941e6  # the 1 Gb/s desk-nas cable bounds it (a busy machine only lowers it)
    for r, window, balance in zip(request.results, request.counters, verdict.balance):
        by_name = {m.name: m for m in window.members}
        moved = by_name["eth-desk"].tx_bytes if window.direction == "read" else by_name["eth-desk"].rx_bytes
        # at least what iperf3 measured in that window crossed eth-desk (a ratio to the same test's figure)
        assert window.direction == r.direction and moved > 0.9 * r.bps / 8 * 2
        assert balance.idle == ["eth-lab"]
    assert [r.tool for r in ctx.raw].count("iperf3") == 4
