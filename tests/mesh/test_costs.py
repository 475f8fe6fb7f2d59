"""Port and cable arithmetic, the cost estimate, and where a switch starts to pay."""
import pytest

from tengig.mesh import MeshPrices, plan_mesh
from tengig.mesh.costs import break_even, mesh_cables, mesh_cost, mesh_ports, switch_cost

from .layouts import seed000_scale


@pytest.mark.parametrize("n, ports, cables", [(2, 2, 1), (3, 6, 3), (4, 12, 6), (5, 20, 10), (64, 4032, 2016)])
def test_full_mesh_counts(n, ports, cables):
    assert (mesh_ports(n), mesh_cables(n)) == (ports, cables)


def test_seed000_costs_120_dollars():
    # "$90 on network cards ... and $30 on the SFP+ cables": six ports at 15, three cables at 10.
    plan = plan_mesh(seed000_scale())
    assert plan.cost.total == 120.0 and plan.cost.currency == "USD"
    assert plan.cost.estimated_prices == ["nic_port", "dac_cable", "switch"]
    # Seed 000 again: two computers for under $40 (2 ports + 1 cable = 40 at these prices, 35
    # with the cheapest cards he saw), and "an additional $80 to add a third computer".
    prices = MeshPrices()
    assert mesh_cost(2, prices) == 40.0 and mesh_cost(3, prices) - mesh_cost(2, prices) == 80.0


def test_user_prices_are_not_labelled_estimates():
    request = seed000_scale()
    request["options"]["prices"] = {"nic_port": 20, "dac_cable": 12.5, "currency": "EUR"}
    plan = plan_mesh(request)
    assert plan.cost.total == 6 * 20 + 3 * 12.5
    assert plan.cost.estimated_prices == ["switch"]


def test_break_even_with_default_prices():
    # mesh(n) = 15 n(n-1) + 10 n(n-1)/2 = 20 n(n-1); switch(n) = 270 + 25 n.
    # n=4: 240 < 370; n=5: 400 > 395, so the switch is cheaper from 5 hosts on.
    prices = MeshPrices()
    assert (mesh_cost(4, prices), switch_cost(4, prices)) == (240.0, 370.0)
    assert (mesh_cost(5, prices), switch_cost(5, prices)) == (400.0, 395.0)
    result = break_even(3, prices)
    assert result.switch_cheaper_from == 5
    assert [r.hosts for r in result.rows] == [2, 3, 4, 5, 6]
    assert result.summary.startswith("3 hosts: mesh 120.00 USD, switch 345.00 USD; the mesh is cheaper here.")


def test_seed000_fourth_machine_is_where_a_cheap_switch_meets_the_mesh():
    # Seed 000 says a fourth computer is where a switch "starts to make more sense". With a
    # 150 USD 4-port switch: 4 hosts cost 240 as a mesh and 150 + 4 x 25 = 250 switched (about
    # even); 5 hosts cost 400 vs 275, but a 4-port switch cannot take a fifth host.
    prices = MeshPrices(switch=150, switch_ports=4)
    result = break_even(4, prices)
    assert result.switch_cheaper_from == 5
    row4 = next(r for r in result.rows if r.hosts == 4)
    assert (row4.mesh_cost, row4.switch_cost, row4.switch_fits) == (240.0, 250.0, True)
    assert not next(r for r in result.rows if r.hosts == 5).switch_fits
    assert "A 4-port switch serves only 4 hosts" in result.summary


def test_free_ports_and_cables_mean_no_break_even():
    result = break_even(3, MeshPrices(nic_port=0, dac_cable=0, switch=100))
    assert result.switch_cheaper_from is None
    assert "never costs less" in result.summary


def test_expensive_switch_break_even_is_still_found():
    # 20 n(n-1) > 10000 + 25 n first at n = 24 (11040 vs 10600); n = 23: 10120 vs 10575.
    assert break_even(3, MeshPrices(switch=10_000, switch_ports=48)).switch_cheaper_from == 24


@pytest.mark.parametrize("given, estimated", [(None, ["nic_port", "dac_cable", "switch"]),
                                              ({"nic_port": 20, "currency": "EUR"}, ["dac_cable", "switch"])])
def test_prices_left_out_stay_estimates_through_the_api(api_with, given, estimated):
    """The API hands a service its params with every default filled in (as middlewared does): a price the
    request left out must still be labelled tengig's estimate in the plan tengig.mesh.plan answers (the panel
    shows "(estimated prices)" from it), as plan_mesh labels it."""
    request = seed000_scale()
    if given is not None:
        request["options"]["prices"] = given
    plan = api_with(None).call("tengig.mesh.plan", request)
    assert plan["cost"]["estimated_prices"] == estimated == plan_mesh(request).cost.estimated_prices
    assert ("Estimated prices" in plan["break_even"]["summary"]) is bool(estimated)
    # what the plan says it was made from still shows every figure, the estimates too
    assert {"nic_port": 20.0 if given else 15.0, "dac_cable": 10.0, "switch": 270.0}.items() \
        <= plan["options"]["prices"].items()
