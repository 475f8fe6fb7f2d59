"""Rendered LAGGs for seed 001's and seed 002's layouts, against golden files, and the contract
details that matter (docs/truenas-api.md §3 fields per platform, the order of iproute2 steps, rc.conf)."""
import pytest

from tengig.lagg import merge_rc_block, plan_lagg, render

from .golden import assert_golden, dump
from .layouts import seed001, seed002

PLATFORMS = ["truenas-scale", "truenas-core", "linux", "freebsd"]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_seed001_golden(platform):
    assert_golden(f"seed001/{platform}.txt", dump(render(plan_lagg(seed001(platform)))))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_seed002_golden(platform):
    assert_golden(f"seed002/{platform}.txt", dump(render(plan_lagg(seed002(platform)))))


def test_seed002_plan_golden():
    # The whole plan as JSON: a change anywhere (members, estimates, reasons, notes) shows up in review.
    assert_golden("seed002/plan.truenas-scale.json", plan_lagg(seed002("truenas-scale")).model_dump_json(indent=2) + "\n")


def _create(platform: str, request=None) -> dict:
    calls = render(plan_lagg(request or seed001(platform))).api_calls
    assert calls[-1].method == "interface.create"
    return calls[-1].params[0]


def test_scale_payload_has_hash_and_lacpdu_core_has_neither():
    scale = _create("truenas-scale")
    assert (scale["type"], scale["lag_protocol"], scale["xmit_hash_policy"], scale["lacpdu_rate"]) == (
        "LINK_AGGREGATION", "LACP", "LAYER3+4", "FAST")
    assert scale["aliases"] == [{"type": "INET", "address": "10.20.0.5", "netmask": 24}]
    core = _create("truenas-core")
    assert "xmit_hash_policy" not in core and "lacpdu_rate" not in core
    assert (core["name"], core["lag_ports"], core["mtu"]) == ("lagg0", ["ix0", "ix2"], 9000)


def test_truenas_members_with_saved_config_are_reset_first_and_restored_by_undo():
    rendered = render(plan_lagg(seed002("truenas-scale")))
    assert [(c.method, c.params[0] if c.method != "interface.create" else None) for c in rendered.api_calls] == [
        ("interface.delete", "enp4s0f0"), ("interface.create", None)]
    assert rendered.commit.params == [{"rollback": True, "checkin_timeout": 60}]
    assert [c.method for c in rendered.undo_calls] == ["interface.delete", "interface.update"]
    assert rendered.undo_calls[1].params == ["enp4s0f0", {"aliases": [{"type": "INET", "address": "10.99.0.5", "netmask": 24}]}]


def test_linux_lacp_steps_in_order():
    request = {**seed002("linux"), "topology": "lacp-switch"}
    rendered = render(plan_lagg(request))
    commands = rendered.commands
    assert commands[0] == ["ip", "addr", "flush", "dev", "enp4s0f0"]
    assert commands[1] == ["ip", "link", "add", "bond1", "type", "bond", "mode", "802.3ad", "miimon", "100",
                           "xmit_hash_policy", "layer3+4", "lacp_rate", "fast"]
    assert commands[2:6] == [["ip", "link", "set", "dev", "enp3s0f0", "down"],
                             ["ip", "link", "set", "dev", "enp3s0f0", "master", "bond1"],
                             ["ip", "link", "set", "dev", "enp4s0f0", "down"],
                             ["ip", "link", "set", "dev", "enp4s0f0", "master", "bond1"]]
    assert commands[6:] == [["ip", "link", "set", "dev", "bond1", "mtu", "9000"],
                            ["ip", "addr", "add", "10.20.0.5/24", "dev", "bond1"],
                            ["ip", "link", "set", "dev", "bond1", "up"]]
    assert rendered.undo[0] == ["ip", "link", "del", "dev", "bond1"]
    assert ["ip", "addr", "add", "10.99.0.5/24", "dev", "enp4s0f0"] in rendered.undo
    assert all(isinstance(arg, str) for argv in commands + rendered.undo for arg in argv)


def test_linux_failover_sets_the_primary():
    commands = render(plan_lagg({**seed001("linux"), "goal": "failover"})).commands
    assert commands[0][:8] == ["ip", "link", "add", "bond1", "type", "bond", "mode", "active-backup"]
    assert "xmit_hash_policy" not in commands[0]
    assert ["ip", "link", "set", "dev", "bond1", "type", "bond", "primary", "enp3s0f0"] in commands


def test_freebsd_create_and_rc_conf():
    rendered = render(plan_lagg({**seed002("freebsd"), "topology": "lacp-switch"}))
    assert ["ifconfig", "lagg0", "create", "laggproto", "lacp", "laggport", "ix0", "laggport", "ix2",
            "lagghash", "l3,l4", "mtu", "9000"] in rendered.commands
    assert rendered.commands[0] == ["ifconfig", "ix0", "up"]
    assert ["ifconfig", "ix2", "inet", "10.99.0.5", "-alias"] in rendered.commands
    assert rendered.undo[0] == ["ifconfig", "lagg0", "destroy"]
    rc = rendered.files[0].content
    assert 'cloned_interfaces="${cloned_interfaces} lagg0"' in rc
    assert 'ifconfig_lagg0="laggproto lacp laggport ix0 laggport ix2 lagghash l3,l4 mtu 9000 inet 10.20.0.5/24 up"' in rc


def test_rc_block_merge_keeps_the_users_lines_and_is_idempotent():
    block = render(plan_lagg(seed002("freebsd"))).files[0].content
    user = 'hostname="nas"\nifconfig_igb0="DHCP"\n'
    once = merge_rc_block(user, block, "lagg0")
    assert once.startswith(user) and once.endswith(block)
    assert merge_rc_block(once, block, "lagg0") == once
    assert merge_rc_block(once, "", "lagg0") == user
    other = merge_rc_block(once, "", "lagg1")  # another LAGG's block is not ours to touch
    assert other == once
