"""The stand-in TrueNAS (tengig.standin.truenas) checked against TrueNAS's own network code: the same
inputs to both, the answers compared (the shape of a result, or the error's kind and field paths).
Real middlewared 25.10.6 with its datastore, network and interface plugins runs in a network namespace
of this module's own with the stand-in's example ports (veths named enp1s0, enp3s0f0, enp3s0f1; the
management port enp1s0 holding 192.168.1.10/24 in both), so no lab is needed. Every interface.* method
the stand-in answers is here; where they differ the stand-in is made to answer as TrueNAS does."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from tengig.client import Client, connect
from tengig.client.errors import ClientError
from tengig.standin.truenas import StandinThread, example_seed

from .conftest import TEST_API_KEY, TEST_USER
from .harness import MiddlewaredSystem, middlewared_build

pytestmark = pytest.mark.realmw  # its own network namespace
VERSION = "25.10.6"
SEED = example_seed("25.10")
PORTS = [i.name for i in SEED.interfaces]
MANAGEMENT = SEED.interfaces[0]


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@pytest.fixture(scope="module")
def namespace():
    name = f"tgcmp{os.getpid()}"
    far = f"{name}far"
    _ip("netns", "add", name)
    _ip("netns", "add", far)
    try:
        for index, port in enumerate(PORTS):
            _ip("-n", name, "link", "add", port, "type", "veth", "peer", "name", f"far{index}", "netns", far)
            _ip("-n", name, "link", "set", port, "up")
            _ip("-n", far, "link", "set", f"far{index}", "up")
        yield name
    finally:
        for netns in (name, far):
            subprocess.run(["ip", "netns", "del", netns], capture_output=True, timeout=30)


@pytest.fixture(scope="module")
def real(namespace, tmp_path_factory):
    """TrueNAS's own interface code, its management port configured as the stand-in's seed has it."""
    system = MiddlewaredSystem(middlewared_build(VERSION), tmp_path_factory.mktemp("truenas-compare"),
                               api_key=TEST_API_KEY, netns=namespace, network=True)
    system.start()
    try:
        assert system.wait_serving(), system.log()[-3000:]
        with Client(system.socket_uri) as client:
            address, prefix = MANAGEMENT.aliases[0].split("/")
            client.call("interface.update", MANAGEMENT.name, {"ipv4_dhcp": False, "ipv6_auto": False, "aliases": [
                {"type": "INET", "address": address, "netmask": int(prefix)}]})
            client.call("interface.commit", {"rollback": True, "checkin_timeout": 60})
            client.call("interface.checkin")
            client.system = system
            yield client
    finally:
        system.stop()


@pytest.fixture(scope="module")
def standin():
    with StandinThread(SEED) as nas, connect(nas.url, nas.api_key) as client:
        yield client
        client.call("interface.rollback")


def answer(client, method: str, *params: Any) -> dict[str, Any]:
    """What a TrueNAS answered, comparable across the two: a result, or an error's kind and fields."""
    try:
        return {"result": client.call(method, *params)}
    except ClientError as exc:
        return {"error": exc.code, "errno": exc.errno, "fields": sorted(f for f, _ in exc.field_errors),
                "messages": sorted(m for _, m in exc.field_errors), "text": str(exc)}


def both(real, standin, method: str, *params: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    return answer(real, method, *params), answer(standin, method, *params)


def _keys(entry: dict[str, Any]) -> set[str]:
    return set(entry) | {f"state.{k}" for k in entry.get("state") or {}}


def test_query_entries_have_truenas_keys(real, standin):
    truth, stand = both(real, standin, "interface.query", [["name", "in", PORTS]])
    real_keys = {e["name"]: _keys(e) for e in truth["result"]}
    for entry in stand["result"]:
        assert _keys(entry) <= real_keys[entry["name"]], sorted(_keys(entry) - real_keys[entry["name"]])
        assert _saved(entry) == _saved(next(e for e in truth["result"] if e["name"] == entry["name"]))
    assert sorted(e["name"] for e in truth["result"]) == sorted(e["name"] for e in stand["result"]) == sorted(PORTS)


SAVED = ("name", "type", "aliases", "mtu", "description", "ipv4_dhcp", "ipv6_auto", "lag_protocol", "lag_ports",
         "xmit_hash_policy", "lacpdu_rate")


def _saved(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: entry.get(key) for key in SAVED}


def _same(truth: dict[str, Any], stand: dict[str, Any]) -> None:
    """The same kind of answer: equal errors (code, errno, field paths, messages), or entries with the same
    saved configuration (and no key TrueNAS does not have), or equal values."""
    assert ("result" in truth) == ("result" in stand), (truth, stand)
    if "result" not in truth:
        assert {k: truth[k] for k in ("error", "errno", "fields", "messages")} == \
            {k: stand[k] for k in ("error", "errno", "fields", "messages")}, (truth, stand)
        if not truth["fields"]:  # a CallError: its words are all there is
            words = [re.sub(r"\[E[A-Z]+\] ", "", a["text"]).strip() for a in (truth, stand)]
            assert words[0] == words[1], words
        return
    got, want = stand["result"], truth["result"]
    if isinstance(want, dict) and "state" in want:
        assert _saved(got) == _saved(want) and _keys(got) <= _keys(want), (_saved(want), _saved(got))
    else:
        assert got == want, (want, got)


def _back_to_seed(real, standin) -> None:
    for client in (real, standin):
        if client.call("interface.checkin_waiting") is not None:
            client.call("interface.checkin")
        if client.call("interface.has_pending_changes"):
            client.call("interface.rollback")


MESH_PORT = {"ipv4_dhcp": False, "ipv6_auto": False, "description": "tengig mesh C01",
             "aliases": [{"type": "INET", "address": "10.250.0.1", "netmask": 30}], "mtu": 9000}
LAGG = {"type": "LINK_AGGREGATION", "name": "bond1", "lag_protocol": "LACP", "lag_ports": ["enp3s0f0", "enp3s0f1"]}

CASES = {
    "update a mesh port": ("interface.update", "enp3s0f0", MESH_PORT),
    "update into another port's network": ("interface.update", "enp3s0f1", {
        "aliases": [{"type": "INET", "address": "192.168.1.20", "netmask": 24}]}),
    "update an MTU out of range": ("interface.update", "enp3s0f1", {"mtu": 9217}),
    "update an unknown key": ("interface.update", "enp3s0f1", {"speed": 10}),
    "update an interface that does not exist": ("interface.update", "nosuch", {"mtu": 9000}),
    "update with a netmask that is no network": ("interface.update", "enp3s0f1", {
        "aliases": [{"type": "INET", "address": "10.1.1.1", "netmask": 33}]}),
    "delete an interface that does not exist": ("interface.delete", "nosuch"),
    "delete a port's saved config": ("interface.delete", "enp1s0"),
    "create a LAGG": ("interface.create", {**LAGG, "xmit_hash_policy": "LAYER3+4", "lacpdu_rate": "FAST", "mtu": 9000,
                                           "aliases": [{"type": "INET", "address": "10.20.0.5", "netmask": 24}]}),
    "create a LAGG with SCALE's defaults": ("interface.create", LAGG),
    "create a round-robin LAGG": ("interface.create", {**LAGG, "lag_protocol": "ROUNDROBIN"}),
    "create a LAGG with a member that has its own config": ("interface.create", {
        **LAGG, "lag_ports": ["enp1s0", "enp3s0f1"]}),
    "create a LAGG with a member that does not exist": ("interface.create", {**LAGG, "lag_ports": ["nosuch"]}),
    "create a LAGG with no members": ("interface.create", {**LAGG, "lag_ports": []}),
    "create a LAGG with a wrong name": ("interface.create", {**LAGG, "name": "lagg1"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_standin_answers_as_truenas_does(real, standin, case):
    _back_to_seed(real, standin)
    try:
        _same(*both(real, standin, *CASES[case]))
    finally:
        _back_to_seed(real, standin)


def test_staging_commit_checkin_and_rollback_answer_as_truenas_does(real, standin):
    """The same steps on both: what each answers, and what interface.query shows after each."""
    _back_to_seed(real, standin)
    steps = [("interface.has_pending_changes",), ("interface.update", "enp3s0f0", MESH_PORT),
             ("interface.has_pending_changes",), ("interface.rollback",), ("interface.has_pending_changes",),
             ("interface.update", "enp3s0f0", MESH_PORT), ("interface.commit", {"rollback": True, "checkin_timeout": 60}),
             ("interface.has_pending_changes",), ("interface.cancel_rollback",), ("interface.checkin_waiting",),
             ("interface.checkin",), ("interface.has_pending_changes",),
             ("interface.delete", "enp3s0f0"), ("interface.commit", {"rollback": True, "checkin_timeout": 60}),
             ("interface.checkin",)]
    for step in steps:
        truth, stand = both(real, standin, *step)
        _same(truth, stand)
        _same(*both(real, standin, "interface.query", [["name", "=", "enp3s0f0"]], {"get": True}))
    truth, stand = both(real, standin, "interface.update", "enp3s0f0", MESH_PORT)
    _same(truth, stand)
    for client in (real, standin):
        client.call("interface.commit", {"rollback": True, "checkin_timeout": 60})
    truth, stand = both(real, standin, "interface.checkin_waiting")
    assert all(0 < a["result"] <= 60 for a in (truth, stand)), (truth, stand)
    _back_to_seed(real, standin)


FROM_THE_FAR_END = """
import json, sys
from tengig.client import connect
url, key, user = sys.argv[1:4]
with connect(url, key, username=user, plain_key_in_clear=True) as client:  # the stand-in login keeps keys
    print(json.dumps([client.call("interface.websocket_interface"), client.call("interface.websocket_local_ip")]))
"""


def test_the_session_interface_answers_as_truenas_does(real, standin, namespace):
    """A session that arrives on the management port (from its far end, over the cable): TrueNAS names that
    port and the address it arrived at; the stand-in plays such a session (its seed's session_interface)."""
    far = f"{namespace}far"
    _ip("-n", far, "addr", "add", "192.168.1.99/24", "dev", "far0")
    address = MANAGEMENT.aliases[0].split("/")[0]
    done = subprocess.run(["ip", "netns", "exec", far, sys.executable, "-c", FROM_THE_FAR_END,
                           f"ws://{address}:{real.system.port}", TEST_API_KEY, TEST_USER],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    interface, local_ip = json.loads(done.stdout.strip().splitlines()[-1])
    _same({"result": interface}, answer(standin, "interface.websocket_interface"))
    assert interface["name"] == MANAGEMENT.name and local_ip == address
    assert answer(standin, "interface.websocket_local_ip") == {"result": local_ip}
