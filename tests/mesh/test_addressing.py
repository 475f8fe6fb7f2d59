"""Subnets per cable: carved from the pool in order, clear of existing networks, both ends addressed."""
import ipaddress

import pytest

from tengig.errors import ValidationError
from tengig.mesh.addressing import allocate_subnets, link_addresses, parse_existing

POOL = ipaddress.IPv4Network("10.250.0.0/16")


def test_subnets_in_order_from_the_start_of_the_pool():
    assert [str(s) for s in allocate_subnets(POOL, 30, 3, [])] == ["10.250.0.0/30", "10.250.0.4/30", "10.250.0.8/30"]


def test_existing_networks_are_skipped_whole():
    existing = parse_existing(["10.250.0.4/30", "10.250.0.9/32", "192.168.1.10/24", "fd00::/64"])
    subnets = allocate_subnets(POOL, 30, 3, existing)
    assert [str(s) for s in subnets] == ["10.250.0.0/30", "10.250.0.12/30", "10.250.0.16/30"]


def test_interface_notation_counts_as_its_network():
    (net,) = parse_existing(["10.250.1.77/24"])
    assert str(net.network) == "10.250.1.0/24" and net.field == "existing_networks.0"


def test_a_large_network_inside_the_pool_is_jumped_not_walked():
    """Walking these taken networks /31 by /31 would be 2^29 + 2^28 steps (hours, so the test's own
    timeout would fail it); jumping over each is one step. No clock needed."""
    pool = ipaddress.IPv4Network("0.0.0.0/1")
    existing = parse_existing(["0.0.0.0/2", "64.0.0.0/3"])
    subnets = allocate_subnets(pool, 31, 2, existing)
    assert [str(s) for s in subnets] == ["96.0.0.0/31", "96.0.0.2/31"]


def test_every_allocated_subnet_is_clear_of_every_existing_network():
    existing = parse_existing([f"10.250.{i}.{j}/{p}" for i, j, p in ((0, 8, 29), (0, 64, 26), (1, 0, 24), (3, 3, 32))])
    for subnet in allocate_subnets(POOL, 30, 500, existing):
        assert all(not subnet.overlaps(e.network) for e in existing)


def test_pool_exhaustion_names_the_pool():
    with pytest.raises(ValidationError) as info:
        allocate_subnets(ipaddress.IPv4Network("10.250.0.0/29"), 30, 3, parse_existing(["10.250.0.0/30"]))
    assert info.value.errors == [(
        "options.address_pool",
        "10.250.0.0/29 holds only 1 /30 subnets clear of 10.250.0.0/30, and the mesh needs 3 (one per cable); "
        "use a larger pool or a longer prefix",
    )]


@pytest.mark.parametrize(
    "subnet, numbers, expected",
    [
        ("10.250.0.0/31", (1, 2), ("10.250.0.0", "10.250.0.1")),   # RFC 3021: both addresses usable
        ("10.250.0.4/30", (1, 2), ("10.250.0.5", "10.250.0.6")),   # network and broadcast left out
        ("10.0.2.0/24", (1, 3), ("10.0.2.1", "10.0.2.3")),          # host number N is .N
    ],
)
def test_link_addresses(subnet, numbers, expected):
    assert link_addresses(ipaddress.IPv4Network(subnet), *numbers) == expected
