"""The lab plan is pure: names, addresses and shaping follow from the spec."""
import pytest

from tengig.errors import ValidationError
from tengig.lab.plan import plan_lab, render_hosts_file, shaping_for
from tengig.lab.spec import build_spec, parse_link_option


def test_default_trio_full_mesh():
    plan = plan_lab(build_spec())
    assert [c.name for c in plan.cables] == ["desk-lab", "desk-nas", "lab-nas"]
    assert all(c.shaping.line_rate_bps == 10 * 10**9 for c in plan.cables)
    # each link its own subnet; each host .N on every link (nas=1, desk=2, lab=3)
    assert len({c.subnet for c in plan.cables}) == 3
    assert plan.address_of("nas", "desk") == "10.250.12.1"
    assert plan.address_of("desk", "nas") == "10.250.12.2"
    assert plan.address_of("lab", "desk") == "10.250.23.3"


def test_hosts_entries_point_each_peer_at_its_direct_link():
    plan = plan_lab(build_spec())
    assert plan.hosts_entries["desk"] == (("10.250.12.1", "nas"), ("10.250.23.3", "lab"))
    assert plan.hosts_entries["lab"] == (("10.250.13.1", "nas"), ("10.250.23.2", "desk"))
    text = render_hosts_file("desk", plan.hosts_entries["desk"])
    assert "10.250.12.1\tnas" in text and "127.0.0.1\tlocalhost" in text


def test_bare_lab_has_cables_but_no_addresses():
    plan = plan_lab(build_spec(bare=True))
    assert len(plan.cables) == 3
    assert all(c.subnet is None and c.a.address is None for c in plan.cables)
    assert all(entries == () for entries in plan.hosts_entries.values())


@pytest.mark.parametrize(
    "rate, tbf_mbit",
    [(10**9, 984.4), (100 * 10**6, 98.44), (10 * 10**9, 9844), (2_500_000_000, 2461)],
)
def test_tbf_rate_is_line_rate_times_1514_over_1538(rate, tbf_mbit):
    shaping = shaping_for(rate, 1500)
    assert shaping.tbf_rate_bps / 10**6 == pytest.approx(tbf_mbit, rel=5e-4)


def test_burst_is_8ms_of_traffic_and_at_least_64k():
    assert shaping_for(100 * 10**6, 1500).burst_bytes == 98_439  # 8 ms at 98.44 Mbit/s
    assert shaping_for(10**9, 1500).burst_bytes == 984_395  # 8 ms at 984.4 Mbit/s
    assert shaping_for(10 * 10**9, 1500).burst_bytes == 9_843_953  # 8 ms at 9.84 Gbit/s
    assert shaping_for(10**9, 9000).burst_bytes >= 2 * 9014


def test_link_option_parsing_either_order():
    assert parse_link_option("desk-nas=1g") == ("desk-nas", 10**9)
    assert parse_link_option("nas-desk=2.5g") == ("desk-nas", 2_500_000_000)
    assert parse_link_option("nas-lab=100m") == ("lab-nas", 100 * 10**6)
    assert parse_link_option("lab-desk=unshaped") == ("desk-lab", None)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("desk-foo=1g", "unknown host 'foo'"),
        ("desknas=1g", "HOST-HOST=RATE"),
        ("desk-nas", "HOST-HOST=RATE"),
        ("desk-nas=fast", "not a link rate"),
        ("desk-nas=5t", "not a link rate"),
        ("nas-nas=1g", "two different hosts"),
        ("desk-nas=0.1m", "outside"),
    ],
)
def test_bad_link_specs_name_the_option(text, needle):
    with pytest.raises(ValidationError) as info:
        parse_link_option(text)
    field, message = info.value.errors[0]
    assert field == f"link {text!r}"
    assert needle in message


def test_same_link_twice_is_refused():
    with pytest.raises(ValidationError, match="given twice"):
        build_spec(["desk-nas=1g", "nas-desk=10g"])


def test_bad_mtu_names_the_field():
    with pytest.raises(ValidationError) as info:
        build_spec(mtu=100)
    assert info.value.errors[0][0] == "mtu"


def test_plan_is_deterministic():
    spec = build_spec(["desk-nas=1g"])
    assert plan_lab(spec) == plan_lab(spec)


@pytest.mark.parametrize("kwargs, says", [
    ({"slow_members": 1}, "needs slow_pool_mbps"),
    ({"slow_pool_mbps": 50, "pool_members": 2, "slow_members": 3}, "raise pool_members"),
])
def test_slow_members_must_fit_the_pool(kwargs, says):
    with pytest.raises(ValidationError) as info:
        build_spec(**kwargs)
    assert info.value.errors[0][0] == "slow_members" and says in info.value.errors[0][1]


def test_the_throttle_slows_every_member_unless_told():
    assert build_spec(slow_pool_mbps=50, pool_members=2).throttled_members == 2
    assert build_spec(slow_pool_mbps=50, pool_members=2, slow_members=1).throttled_members == 1
    assert build_spec(pool_members=2).throttled_members == 0
