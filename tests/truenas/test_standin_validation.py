"""The stand-in refuses what TrueNAS refuses, with middlewared's field paths and messages (rules.py)."""
import pytest

from tengig.backends.truenas import TrueNASBackend
from tengig.errors import ValidationError
from tengig.standin.truenas import SeedInterface, StandinSeed


def _seed(release: str) -> StandinSeed:
    core = release == "13.3"
    p = ("igb0", "ix0", "ix1", "ix2") if core else ("enp1s0", "enp3s0f0", "enp3s0f1", "enp4s0")
    lagg = "lagg1" if core else "bond1"
    return StandinSeed(release=release, session_interface=p[0], interfaces=[
        SeedInterface(name=p[0], aliases=["192.168.1.10/24"], ipv4_dhcp=False),
        SeedInterface(name=p[1]), SeedInterface(name=p[2]),
        SeedInterface(name=p[3], aliases=["10.0.0.1/30"]),
        SeedInterface(name=lagg, type="LINK_AGGREGATION", lag_protocol="FAILOVER", lag_ports=[p[1]]),
    ])


def _refusal(backend, method, *params) -> dict[str, str]:
    with pytest.raises(ValidationError) as refused:
        backend.call(method, *params)
    return dict(refused.value.errors)


@pytest.fixture
def scale(standin):
    nas = standin(seed=_seed("25.04"))
    with nas.client() as client:
        yield TrueNASBackend(client)


@pytest.fixture
def core(standin):
    nas = standin(seed=_seed("13.3"))
    with nas.client() as client:
        yield TrueNASBackend(client)


def test_lag_member_errors_scale(scale):
    errors = _refusal(scale, "interface.create", {"type": "LINK_AGGREGATION", "name": "bond2", "lag_protocol": "LACP",
                                                  "lag_ports": ["enp3s0f0", "enp9s0", "enp4s0"]})
    assert errors == {
        "interface_create.lag_ports.0": "Interface enp3s0f0 is currently in use by bond1.",
        "interface_create.lag_ports.1": '"enp9s0" is not a valid interface.',
        "interface_create.lag_ports.2": "Interface enp4s0 is currently in use",  # its own saved IP
    }


@pytest.mark.parametrize("protocol", ["ROUNDROBIN", "NONE"])
def test_scale_refuses_bsd_only_protocols(scale, protocol):
    errors = _refusal(scale, "interface.create", {"type": "LINK_AGGREGATION", "lag_protocol": protocol,
                                                  "lag_ports": ["enp3s0f1"]})
    assert errors == {"interface_create.lag_protocol": f"TrueNAS SCALE does not support LAG protocol {protocol}"}


def test_core_accepts_roundrobin_and_names_lagg(core):
    created = core.call("interface.create", {"type": "LINK_AGGREGATION", "lag_protocol": "ROUNDROBIN",
                                             "lag_ports": ["ix2"]})
    assert created["name"] == "lagg0" and created["lag_protocol"] == "ROUNDROBIN"
    assert _refusal(core, "interface.create", {"type": "LINK_AGGREGATION", "name": "bond3", "lag_protocol": "LACP",
                                               "lag_ports": ["ix9"]}) == {
        "interface_create.name": 'Link aggregation interface names must be "lagg" followed by a number.',
        "interface_create.lag_ports.0": "Not a valid interface."}


def test_core_has_no_hash_options_and_a_higher_mtu_floor(core, scale):
    assert "interface_create.xmit_hash_policy" in _refusal(core, "interface.create", {
        "type": "LINK_AGGREGATION", "lag_protocol": "LACP", "lag_ports": ["ix2"], "xmit_hash_policy": "LAYER2"})
    assert "interface_update.mtu" in _refusal(core, "interface.update", "ix2", {"mtu": 1400})
    assert scale.call("interface.update", "enp3s0f1", {"mtu": 1400})["mtu"] == 1400
    assert "data.mtu" in _refusal(scale, "interface.update", "enp3s0f1", {"mtu": 9217})  # 25.04+'s API layer


def test_overlapping_network_and_second_dhcp(scale):
    assert _refusal(scale, "interface.update", "enp3s0f1", {"aliases": [
        {"type": "INET", "address": "10.0.0.2", "netmask": 30}]}) == {
        "interface_update.aliases.0": "The network 10.0.0.0/30 is already in use by another interface."}
    scale.call("interface.update", "enp3s0f1", {"ipv4_dhcp": True})
    assert _refusal(scale, "interface.update", "enp4s0", {"ipv4_dhcp": True}) == {
        "interface_update.ipv4_dhcp": "Only one interface can be used for DHCP."}


def test_a_lag_member_keeps_no_config_of_its_own(scale):
    assert _refusal(scale, "interface.update", "enp3s0f0", {"mtu": 9000}) == {
        "interface_update.mtu": "Interface in use by bond1. MTU cannot be changed."}


def test_required_lag_fields(scale):
    assert _refusal(scale, "interface.create", {"type": "LINK_AGGREGATION"}) == {
        "interface_create.lag_protocol": "This field is required", "interface_create.lag_ports": "This field is required"}


def test_refused_edits_stage_nothing(scale):
    _refusal(scale, "interface.update", "enp3s0f0", {"mtu": 9000})
    assert scale.has_pending_changes() is False
