"""plan_mesh on seed 000's trio, the lab's hosts, mixed speeds, and large meshes."""
import ipaddress
import random
from collections import Counter
from itertools import combinations, product

import pytest

from tengig.errors import ValidationError
from tengig.mesh import plan_mesh
from tengig.verdict.ceilings import tcp_goodput_bps

from .layouts import TEN_G, full_mesh, lab_hosts, port, seed000_core, seed000_scale, shuffled


def test_seed000_three_hosts_three_cables_six_ports():
    plan = plan_mesh(seed000_scale())
    assert [h.name for h in plan.hosts] == ["desk", "lab", "nas"]
    assert [(c.id, c.a.host, c.b.host) for c in plan.cables] == [
        ("C01", "desk", "lab"), ("C02", "desk", "nas"), ("C03", "lab", "nas")
    ]
    assert plan.counts.cables == 3 and plan.counts.ports_used == 6 and plan.counts.ports_spare == 0
    used = {(end.host, end.port) for c in plan.cables for end in (c.a, c.b)}
    assert len(used) == 6  # every port used exactly once


def test_seed000_each_link_its_own_subnet_clear_of_the_lan():
    plan = plan_mesh(seed000_core())
    subnets = [ipaddress.ip_network(c.subnet) for c in plan.cables]
    assert [str(s) for s in subnets] == ["10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24"]  # 10.0.0.0/24 is the LAN
    assert all(not a.overlaps(b) for i, a in enumerate(subnets) for b in subnets[i + 1:])
    for cable in plan.cables:
        net = ipaddress.ip_network(cable.subnet)
        assert ipaddress.ip_address(cable.a.address) in net and ipaddress.ip_address(cable.b.address) in net


def test_slash24_links_give_each_host_its_number_on_every_link():
    plan = plan_mesh(seed000_core())  # desk=1, lab=2, nas=3 (sorted)
    for cable in plan.cables:
        for end in (cable.a, cable.b):
            assert end.address.endswith("." + str({"desk": 1, "lab": 2, "nas": 3}[end.host]))


def test_each_peer_name_resolves_to_its_direct_link_on_every_host():
    plan = plan_mesh(seed000_scale())
    for host in plan.hosts:
        entries = {e.name: e.address for e in host.hosts_entries}
        assert sorted(entries) == sorted(h.name for h in plan.hosts if h.name != host.name)
        for peer, address in entries.items():
            cable = next(c for c in plan.cables if {c.a.host, c.b.host} == {host.name, peer})
            assert cable.end_of(peer).address == address
            # ...and the address is on a subnet this host has a port on: reached directly, no router.
            mine = next(p for p in host.ports if p.cable == cable.id)
            assert ipaddress.ip_address(address) in ipaddress.ip_interface(mine.address).network


def test_name_suffix_gives_fast_names():
    request = seed000_scale()
    request["options"]["name_suffix"] = "-10g"
    plan = plan_mesh(request)
    assert [e.name for e in plan.host("desk").hosts_entries] == ["lab-10g", "nas-10g"]


def test_four_hosts_need_twelve_ports_and_six_cables():
    # Seed 000: "A fourth computer would be even more expensive (8 total network interfaces,
    # 6 total cables)". Six cables is n(n-1)/2 = 6. Ports are n(n-1) = 4 x 3 = 12, not 8: each of
    # the four hosts needs three ports. The seed's 8 matches dual-port cards: ceil(3/2) = 2 cards
    # per host, 8 cards in all (with 4 ports spare), which the plan reports separately.
    plan = plan_mesh(full_mesh(4))
    assert plan.counts.cables == 6
    assert plan.counts.ports_used == 12
    assert plan.counts.dual_port_cards_to_buy == 8
    assert plan_mesh(seed000_scale()).counts.dual_port_cards_to_buy == 3  # one dual-port card per host


def test_goodput_ceiling_per_link():
    plan = plan_mesh(seed000_scale())
    assert all(c.goodput_bps == tcp_goodput_bps(TEN_G, 9000) for c in plan.cables)
    assert plan.cables[0].goodput_bps == pytest.approx(9.900e9, rel=1e-3)  # docs/physics.md §1: 10 GbE at MTU 9000


def test_lab_hosts_with_reserved_ports_cable_eth_peer_to_eth_peer():
    plan = plan_mesh(lab_hosts(pinned=True))
    for cable in plan.cables:
        assert cable.a.port == f"eth-{cable.b.host}" and cable.b.port == f"eth-{cable.a.host}"


def test_reserved_port_wins_over_natural_order():
    request = seed000_scale()
    request["hosts"][0]["ports"][1]["peer"] = "lab"  # desk's Ethernet 3 is already wired to lab
    plan = plan_mesh(request)
    assert plan.cables[0].end_of("desk").port == "Ethernet 3"
    assert plan.cables[1].end_of("desk").port == "Ethernet 2"


def test_cables_spread_across_cards():
    request = {
        "hosts": [
            {"name": "nas", "kind": "linux", "ports": [port("a0", "A"), port("a1", "A"), port("b0", "B"), port("b1", "B")]},
            {"name": "c1", "kind": "linux", "ports": [port("p0"), port("p1")]},
            {"name": "c2", "kind": "linux", "ports": [port("p0"), port("p1")]},
        ]
    }
    plan = plan_mesh(request)
    nas_cards = [p.card for p in plan.host("nas").ports if p.cable]
    assert sorted(nas_cards) == ["A", "B"]  # not both cables on card A
    assert [p.port for p in plan.host("nas").ports if p.cable is None] == ["a1", "b1"]  # spares listed


def test_speeds_are_matched_per_cable():
    request = {
        "hosts": [
            {"name": "nas", "kind": "linux", "ports": [port("p25", speed="25g"), port("p10", speed="10g")]},
            {"name": "desk", "kind": "linux", "ports": [port("q10", speed="10g"), port("q25", speed="25g")]},
            {"name": "lab", "kind": "linux", "ports": [port("r10a", speed="10g"), port("r10b", speed="10g")]},
        ]
    }
    plan = plan_mesh(request)
    by_pair = {(c.a.host, c.b.host): c for c in plan.cables}
    assert by_pair[("desk", "nas")].speed_bps == 25 * 10**9  # the one pair that can run at 25G does
    assert by_pair[("desk", "lab")].speed_bps == TEN_G and by_pair[("lab", "nas")].speed_bps == TEN_G
    speed_of = {(h["name"], p["name"]): p["speed_bps"] for h in request["hosts"] for p in h["ports"]}
    for cable in plan.cables:
        for end in (cable.a, cable.b):
            assert {"10g": TEN_G, "25g": 25 * 10**9}[speed_of[(end.host, end.port)]] == cable.speed_bps


def _brute_force_feasible(request) -> bool:
    """Is there any choice of one speed per host pair that every host has free ports for?"""
    hosts = {h["name"]: Counter(p["speed_bps"] for p in h["ports"]) for h in request["hosts"]}
    pairs = list(combinations(sorted(hosts), 2))
    options = [sorted(set(hosts[a]) & set(hosts[b])) for a, b in pairs]
    for choice in product(*options):
        used = {name: Counter() for name in hosts}
        for (a, b), speed in zip(pairs, choice):
            used[a][speed] += 1
            used[b][speed] += 1
        if all(used[n][s] <= hosts[n][s] for n in hosts for s in used[n]):
            return True
    return False


@pytest.mark.parametrize("seed", range(40))
def test_mixed_speed_planning_agrees_with_brute_force(seed):
    # The speed search must find a plan whenever one exists (greedy fastest-first in pair order
    # does not always), and refuse with a hosts field otherwise.
    rng = random.Random(seed)
    n = rng.choice([3, 4])
    request = {"hosts": [
        {"name": f"h{i}", "kind": "linux",
         "ports": [port(f"p{k}", speed=rng.choice(["10g", "25g"])) for k in range(rng.randint(n - 1, n + 1))]}
        for i in range(n)
    ]}
    try:
        plan = plan_mesh(request)
    except ValidationError as exc:
        assert not _brute_force_feasible(request), exc.errors
        assert all(field == "hosts" or field.startswith("hosts.") for field, _ in exc.errors)
        return
    assert _brute_force_feasible(request)
    speed_of = {(h["name"], p["name"]): p["speed_bps"] for h in request["hosts"] for p in h["ports"]}
    ends = [(end.host, end.port) for c in plan.cables for end in (c.a, c.b)]
    assert len(ends) == len(set(ends))  # no port used twice
    for cable in plan.cables:
        assert speed_of[(cable.a.host, cable.a.port)] == speed_of[(cable.b.host, cable.b.port)]


def test_odd_ring_of_25g_ports_is_refused_clearly():
    # Each host has one 25G and one 10G port: the 25G cables would have to pair the three hosts
    # off, which three hosts cannot do. No plan exists; the error says so and names no single port.
    request = {"hosts": [
        {"name": name, "kind": "linux", "ports": [port("p25", speed="25g"), port("p10", speed="10g")]}
        for name in ("a", "b", "c")
    ]}
    with pytest.raises(ValidationError) as info:
        plan_mesh(request)
    assert info.value.errors[0][0] == "hosts"
    assert "same speed at both ends" in info.value.errors[0][1]


@pytest.mark.parametrize("seed", range(5))
def test_same_request_in_any_order_gives_the_same_plan(seed):
    for make in (seed000_scale, seed000_core, lambda: full_mesh(7, extra_ports=2)):
        reference = plan_mesh(make()).model_dump_json()
        assert plan_mesh(make()).model_dump_json() == reference
        assert plan_mesh(shuffled(make(), seed)).model_dump_json() == reference


def test_64_hosts_plan_completely():
    """How long it takes is in `make bench` (scripts/bench_planner.py), not here."""
    plan = plan_mesh(full_mesh(64))
    assert plan.counts.cables == 64 * 63 // 2 == len(plan.cables) == 2016
    assert plan.counts.ports_used == 64 * 63
    assert len({c.subnet for c in plan.cables}) == 2016


def test_diagram_has_a_node_per_host_and_an_edge_per_cable():
    plan = plan_mesh(seed000_scale())
    assert [n.id for n in plan.diagram.nodes] == ["desk", "lab", "nas"]
    assert plan.diagram.nodes[0].x == 0.5 and plan.diagram.nodes[0].y == 0.05  # first host at the top
    assert all(0 <= n.x <= 1 and 0 <= n.y <= 1 for n in plan.diagram.nodes)
    assert [(e.source, e.target, e.label) for e in plan.diagram.edges][0] == ("desk", "lab", "10 Gb/s 10.250.0.0/30")


def test_labels_name_both_ends_of_every_cable():
    plan = plan_mesh(seed000_scale())
    ends = [lb for lb in plan.labels if lb.kind == "cable-end"]
    ports = [lb for lb in plan.labels if lb.kind == "port"]
    assert len(ends) == 6 and len(ports) == 6
    assert ends[0].text == "C01-A desk Ethernet 2 | other end: lab enp4s0f0"
    assert all(text.isascii() for text in (plan.labels_text, plan.labels_csv))
    assert plan.labels_csv.splitlines()[0] == "id,kind,host,port,card,cable,peer_host,peer_port,text"
    assert len(plan.labels_csv.splitlines()) == 13


def test_notes_flag_shared_cards_and_jumbo_checks():
    plan = plan_mesh(seed000_scale())
    codes = {(n.code, n.host) for n in plan.notes}
    assert ("shared-card", "nas") in codes and ("shared-card", "lab") in codes
    assert ("shared-card", "desk") not in codes  # two single-port cards
    assert ("jumbo-end-to-end", None) in codes
    request = seed000_scale()
    request["options"]["mtu"] = 9216
    assert "windows-jumbo-value" in {n.code for n in plan_mesh(request).notes}
