"""Every refusal names the field to fix, in request order; TrueNAS's own checks in TrueNAS's words."""
import pytest

from tengig.errors import ValidationError
from tengig.lagg import plan_lagg

from .layouts import ONE_G, edit, inventory, nic, seed001, seed002


def _errors(request) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as info:
        plan_lagg(request)
    return info.value.errors


def _one(request) -> tuple[str, str]:
    errors = _errors(request)
    assert len(errors) == 1, errors
    return errors[0]


def test_member_not_an_interface_scale_and_core_wording():
    assert _one(edit(seed001("truenas-scale"), members=["enp3s0f0", "enp9s0"])) == (
        "options.members.1", '"enp9s0" is not a valid interface.')
    assert _one(edit(seed001("truenas-core"), members=["ix0", "ix9"])) == ("options.members.1", "Not a valid interface.")


def test_member_in_use_by_another_bond():
    nics = inventory("truenas-scale")
    nics[2]["in_use_by"] = "bond0"
    assert _one({**edit(seed001("truenas-scale"), members=["enp3s0f0", "enp4s0f0"]), "nics": nics}) == (
        "options.members.1", "Interface enp4s0f0 is currently in use by bond0.")


@pytest.mark.parametrize("change, what", [
    ({"addresses": ["10.99.0.5/24"]}, "address 10.99.0.5/24"),
    ({"mtu": 9000}, "MTU 9000"),  # TrueNAS sets a port's MTU only from its saved config
])
def test_member_with_its_own_config_must_be_cleared_first(change, what):
    nics = inventory("truenas-scale")
    nics[2].update(change)
    field, message = _one({**edit(seed001("truenas-scale"), members=["enp3s0f0", "enp4s0f0"]), "nics": nics})
    assert field == "options.members.1"
    assert message.startswith("Interface enp4s0f0 is currently in use") and what in message
    assert "options.clear_member_config" in message
    ok = {**edit(seed001("truenas-scale"), members=["enp3s0f0", "enp4s0f0"], clear_member_config=True), "nics": nics}
    assert plan_lagg(ok).members[1].clear_config == [what]


def test_a_saved_mtu_is_no_config_on_plain_linux():
    nics = inventory("linux")
    nics[2]["mtu"] = 9000
    assert plan_lagg({**edit(seed001("linux"), members=["enp3s0f0", "enp4s0f0"]), "nics": nics}).members[1].clear_config == []


def test_the_callers_own_port_needs_confirmation():
    field, message = _one(edit(seed001("linux"), members=["enp3s0f0", "eno1"]))
    assert field == "options.members.1" and "carries this session" in message
    assert "options.confirm_session_interface" in message


def test_member_without_link():
    nics = inventory("linux")
    nics[2].update(link="down", speed_bps=None)
    field, message = _one({**edit(seed001("linux"), members=["enp3s0f0", "enp4s0f0"]), "nics": nics})
    assert field == "options.members.1" and "has no link" in message


def test_mixed_speeds_name_the_odd_member():
    nics = inventory("linux") + [nic("enp6s0", "0000:06:00", speed=ONE_G)]
    field, message = _one({**edit(seed001("linux"), members=["enp3s0f0", "enp4s0f0", "enp6s0"]), "nics": nics})
    assert field == "options.members.2"
    assert "enp6s0 runs at 1 Gb/s but enp3s0f0 (options.members.0) at 10 Gb/s" in message


def test_duplicate_and_too_few_members():
    assert _one(edit(seed001("linux"), members=["enp3s0f0", "enp3s0f0"]))[0] == "options.members.1"
    assert _one(edit(seed001("linux"), members=["enp3s0f0"]))[0] == "options.members"


def test_a_bond_is_not_a_member():
    nics = inventory("linux") + [nic("bond0", None, kind="bond")]
    field, message = _one({**edit(seed001("linux"), members=["enp3s0f0", "bond0"]), "nics": nics})
    assert field == "options.members.1" and "bond interface, not a port" in message


@pytest.mark.parametrize("platform, protocol, expected", [
    ("truenas-scale", "ROUNDROBIN", "TrueNAS SCALE does not support LAG protocol ROUNDROBIN"),
    ("truenas-scale", "NONE", "TrueNAS SCALE does not support LAG protocol NONE"),
    ("linux", "NONE", "Linux bonding has no NONE protocol"),
    ("truenas-core", "NONE", "NONE passes no traffic"),
])
def test_protocols_the_platform_does_not_take(platform, protocol, expected):
    field, message = _one(edit(seed002(platform), protocol=protocol))
    assert field == "options.protocol" and message.startswith(expected)


def test_round_robin_never_on_an_lacp_switch_and_lacp_never_on_an_unmanaged_one():
    field, message = _one({**edit(seed002("linux"), protocol="ROUNDROBIN"), "topology": "lacp-switch"})
    assert field == "options.protocol" and "never goes on an LACP switch" in message
    field, message = _one(edit(seed002("linux"), protocol="LACP"))
    assert field == "options.protocol" and "does not speak LACP" in message
    assert _one({**edit(seed002("freebsd"), protocol="ROUNDROBIN"), "topology": "many-clients"})[0] == "options.protocol"


@pytest.mark.parametrize("platform, name, expected", [
    ("truenas-core", "bond1", 'Link aggregation interface must start with "lagg" followed by an unique number.'),
    ("truenas-scale", "lagg0", 'Link aggregation interface must start with "bond" followed by an unique number.'),
    ("linux", "bond1;x", 'Link aggregation interface must start with "bond" followed by an unique number.'),
    ("linux", "eno1", 'Link aggregation interface must start with "bond" followed by an unique number.'),
])
def test_names_per_platform(platform, name, expected):
    assert _one(edit(seed001(platform), name=name)) == ("options.name", expected)


def test_a_name_already_taken():
    nics = inventory("linux") + [nic("bond1", None, kind="bond")]
    assert _one({**edit(seed001("linux"), name="bond1"), "nics": nics}) == ("options.name", "Interface name is already in use.")


def test_mtu_ranges():
    assert _one(edit(seed001("truenas-core"), mtu=1400)) == (
        "options.mtu", "TrueNAS CORE takes an MTU of 1492..9216, not 1400")
    field, _ = _one(edit(seed001("truenas-scale"), mtu=9217))  # the schema's own bound, through pydantic
    assert field == "options.mtu"


def test_scale_refuses_an_mtu_below_ipv6s_1280_before_sending_it():
    # Committed on SCALE, an MTU of 1000 broke TrueNAS's own interface listing, then its commit and
    # rollback (docs/truenas-api.md §3): refused in the plan, before any call reaches the NAS.
    assert _one(edit(seed001("truenas-scale"), mtu=1000)) == (
        "options.mtu", "TrueNAS SCALE takes an MTU of 1280..9216, not 1000: below 1280 the kernel drops the "
        "port's IPv6 and TrueNAS's interface listing fails, and with it its commit and rollback")
    assert plan_lagg(edit(seed001("truenas-scale"), mtu=1280)).mtu == 1280
    assert plan_lagg(edit(seed001("linux"), mtu=1000)).mtu == 1000  # a plain Linux machine takes it


def test_address_checks():
    assert _one(edit(seed001("linux"), address="192.168.1.77/24")) == (
        "options.address", "The network 192.168.1.0/24 is already in use by another interface. (eno1 has 192.168.1.10/24)")
    assert _one(edit(seed001("linux"), address="10.20.0.5"))[0] == "options.address"
    assert _one(edit(seed001("linux"), address="10.20.0.0/24"))[1].endswith("pick a host address")


def test_unknown_keys_are_refused_with_their_path():
    assert _one(edit(seed001("linux"), memebrs=["enp3s0f0"]))[0] == "options.memebrs"


def test_too_few_usable_ports_says_why_for_each():
    nics = [nic("enp3s0f0", "0000:03:00"), nic("enp3s0f1", "0000:03:00", in_use_by="bond0"),
            nic("eno1", None, addresses=["192.168.1.10/24"], carries_session=True)]
    field, message = _one({**seed001("linux"), "nics": nics})
    assert field == "nics"
    assert "enp3s0f1: Interface enp3s0f1 is currently in use by bond0." in message and "eno1: eno1 carries" in message


def test_member_count_checks():
    assert _one(edit(seed001("linux"), member_count=5))[0] == "options.member_count"
    assert _one(edit(seed001("linux"), members=["enp3s0f0", "enp4s0f0"], member_count=2))[0] == "options.member_count"


def test_duplicate_nic_names():
    nics = inventory("linux") + [nic("enp3s0f0", "0000:03:00")]
    assert _one({**seed001("linux"), "nics": nics})[0] == "nics.5.name"


def test_every_error_at_once_in_request_order():
    request = edit(seed001("truenas-scale"), name="lagg1", protocol="ROUNDROBIN", members=["enp3s0f0", "enp9s0", "eno1"],
                   mtu=100, address="10.20.0.0/24")
    assert [field for field, _ in _errors(request)] == [
        "options.name", "options.protocol", "options.members.1", "options.members.2", "options.mtu", "options.address",
    ]
