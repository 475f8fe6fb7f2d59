"""interface.query -> Nic, on recorded-shape answers (tests/fixtures/truenas/README.md)."""
import pytest

from tengig.backends.truenas import nics_from_query, parse_link_state, parse_media_subtype, pci_slot_from_name

from .conftest import fixture_json


@pytest.mark.parametrize("text, options, speed, duplex", [
    ("10000Mb/s Twisted Pair", None, 10_000_000_000, None),            # SCALE (ethtool): no duplex
    ("25000Mb/s Direct Attach Copper", None, 25_000_000_000, None),
    ("1000Mb/s Twisted Pair", None, 1_000_000_000, None),
    ("Unknown Twisted Pair", None, None, None),                         # SCALE, link down
    ("10Gbase-T <full-duplex>", None, 10_000_000_000, "full"),          # CORE ifmedia
    ("autoselect (10GBase-SR <full-duplex>)", None, 10_000_000_000, "full"),
    ("1000baseT <full-duplex>", None, 1_000_000_000, "full"),
    ("100baseTX <half-duplex>", None, 100_000_000, "half"),
    ("2500Base-T", ["full-duplex"], 2_500_000_000, "full"),             # duplex from media_options
    ("autoselect", None, None, None),
    ("", None, None, None),
])
def test_media_subtype(text, options, speed, duplex):
    assert parse_media_subtype(text, options) == (speed, duplex)


@pytest.mark.parametrize("text, link", [("LINK_STATE_UP", "up"), ("LINK_STATE_DOWN", "down"),
                                        ("LINK_STATE_LOWERLAYERDOWN", "down"), ("LINK_STATE_UNKNOWN", "unknown"),
                                        ("", "unknown"), (None, "unknown")])
def test_link_state(text, link):
    assert parse_link_state(text) == link


@pytest.mark.parametrize("name, slot", [("enp3s0f1", "0000:03:00.1"), ("enp3s0", "0000:03:00.0"),
                                        ("enp0s31f6", "0000:00:1f.6"), ("enP2p65s0f0", "0002:41:00.0"),
                                        ("enp129s0f1d1", "0000:81:00.1"), ("eno1", None), ("ens1f0", None),
                                        ("eth0", None), ("ix0", None), ("bond1", None), ("enp300s0", None)])
def test_pci_slot_from_predictable_names(name, slot):
    assert pci_slot_from_name(name) == slot


def test_scale_inventory():
    nics = {n.name: n for n in nics_from_query(fixture_json("scale_25_04_interface_query.json"),
                                               fixture_json("scale_25_04_websocket_interface.json"))}
    assert list(nics) == ["bond1", "enp1s0", "enp3s0f0", "enp3s0f1", "enp4s0f0", "enp4s0f1"]
    mesh = nics["enp3s0f0"]
    assert (mesh.kind, mesh.link, mesh.speed_bps, mesh.mtu, mesh.mac) == ("physical", "up", 10**10, 9000,
                                                                          "a0:36:9f:aa:00:10")
    assert (mesh.pci_slot, mesh.card, mesh.addresses) == ("0000:03:00.0", "0000:03:00", ["10.250.0.1/30"])
    down = nics["enp3s0f1"]
    assert (down.link, down.speed_bps, down.card) == ("down", None, "0000:03:00")  # same card as enp3s0f0
    assert nics["enp1s0"].carries_session and not mesh.carries_session
    assert nics["enp1s0"].addresses == ["192.168.1.10/24", "fe80::3eec:efff:fe12:3456/64"]
    assert nics["enp4s0f0"].in_use_by == "bond1" and nics["enp4s0f1"].in_use_by == "bond1"
    assert (nics["bond1"].kind, nics["bond1"].card, nics["bond1"].in_use_by) == ("bond", None, None)


def test_core_inventory_has_duplex_and_no_cards():
    nics = {n.name: n for n in nics_from_query(fixture_json("core_13_3_interface_query.json"), "igb0")}
    assert (nics["ix0"].speed_bps, nics["ix0"].duplex, nics["ix0"].card) == (10**10, "full", None)
    assert (nics["igb0"].speed_bps, nics["igb0"].duplex) == (10**9, "full")
    assert nics["ix1"].in_use_by == "lagg0" and nics["igb0"].carries_session
    assert nics["lagg0"].kind == "bond"


def test_nics_over_the_wire(standin):
    nas = standin("25.10")
    with nas.client() as client:
        from tengig.backends.truenas import TrueNASBackend
        nics = {n.name: n for n in TrueNASBackend(client).nics()}
    assert nics["enp1s0"].carries_session and nics["enp3s0f1"].card == "0000:03:00"
    assert nics["enp3s0f0"].speed_bps == 10**10
