"""A mesh applied through TrueNAS's own network code: real middlewared 25.10.6 on the lab's nas (its
network namespace) with TrueNAS's ``datastore`` (a database built by TrueNAS's own migrations),
``network`` and ``interface`` plugins, and tengig installed by its installer. ``midclt call -j
tengig.mesh.apply`` with system truenas, from inside middlewared, with no TENGIG_TRUENAS_* anywhere:
tengig stages interface.update per cable port, TrueNAS's interface.commit (rollback armed) puts the
addresses and MTU into nas's kernel, tengig's probe pings each peer over its cable, then
interface.checkin. A probe that fails leaves TrueNAS's own interface.rollback to put back what was
there, in the kernel and in TrueNAS's database. One middlewared for the module, its state carried from
test to test in order."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tengig.lab.mesh_adapter import lab_hosts_file, lab_mesh_request, lab_network
from tengig.mesh import MeshRequest, plan_mesh
from tengig.mesh.apply_linux import apply_linux

from .conftest import TEST_API_KEY, installer_for
from .harness import MiddlewaredSystem, middlewared_build

pytestmark = [pytest.mark.lab, pytest.mark.realmw]
VERSION = "25.10.6"
NAS_PORTS = ("eth-desk", "eth-lab")


def truenas_on_nas(version: str, lab, run_dir):
    """The lab's nas as a TrueNAS of ``version``: middlewared with its own network code, tengig installed;
    stopped at the end (a generator for a module's fixture)."""
    system = MiddlewaredSystem(middlewared_build(version), run_dir, api_key=TEST_API_KEY, netns=lab.netns("nas"),
                               network=True)
    system.start()
    try:
        assert system.wait_serving(), system.log()[-3000:]
        installer_for(system).install()
        yield system
    finally:
        system.stop()


@pytest.fixture(scope="module")
def nas(bare_lab, tmp_path_factory):
    """The lab's nas as a TrueNAS 25.10."""
    yield from truenas_on_nas(VERSION, bare_lab, tmp_path_factory.mktemp("truenas-network"))


def _request(lab, prefix=30, existing_networks=()):
    """The lab's mesh with nas as a TrueNAS SCALE (jumbo frames: the MTU is part of what is applied)."""
    doc = lab_mesh_request(lab, prefix=prefix, mtu=9000, existing_networks=existing_networks).model_dump(mode="json")
    for host in doc["hosts"]:
        if host["name"] == "nas":
            host["kind"] = "truenas-scale"
    return doc


def _call(nas, *args, timeout=120):
    done = nas.midclt("call", *args, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout.strip()
    scalars = {"True": True, "False": False, "None": None, "": None}  # midclt prints those as Python does
    return scalars[out] if out in scalars else json.loads(out)


def _kernel(lab) -> dict[str, dict]:
    """nas's ports as its kernel holds them: IPv4 addresses and MTU (`ip -j addr` in its namespace)."""
    done = subprocess.run(["ip", "-n", lab.netns("nas"), "-j", "addr", "show"], capture_output=True, text=True,
                          check=True, timeout=30)
    return {i["ifname"]: {"mtu": i["mtu"], "inet": sorted(f"{a['local']}/{a['prefixlen']}" for a in i["addr_info"]
                                                           if a["family"] == "inet")}
            for i in json.loads(done.stdout) if i["ifname"] in NAS_PORTS}


def _database(nas) -> dict[str, dict]:
    """nas's ports as TrueNAS's database keeps them (interface.query's saved configuration)."""
    return {i["name"]: {"mtu": i["mtu"], "inet": sorted(f"{a['address']}/{a['netmask']}" for a in i["aliases"]
                                                         if a["type"] == "INET")}
            for i in _call(nas, "interface.query") if i["name"] in NAS_PORTS}


def _network_of(ports: dict[str, dict]) -> str:
    """The /24 the current links are in (the planner then puts a new plan's links elsewhere)."""
    import ipaddress

    address = next(a for port in ports.values() for a in port["inet"])
    return str(ipaddress.ip_interface(address.split("/")[0] + "/24").network)


def _planned(plan) -> dict[str, dict]:
    nas_ends = {c.end_of("nas").port: c.end_of("nas") for c in plan.cables_of("nas")}
    prefix = {c.end_of("nas").port: c.prefix for c in plan.cables_of("nas")}
    return {port: {"mtu": plan.options.mtu, "inet": [f"{end.address}/{prefix[port]}"]}
            for port, end in nas_ends.items()}


def _peers_ready(lab, request):
    """desk and lab take their ends of the plan (plain Linux, iproute2): nas's probe has someone to ping."""
    plan = plan_mesh(request)
    for host in ("desk", "lab"):
        network = lab_network(lab, host)
        for cable in plan.cables_of(host):  # an earlier plan's addresses go first: a mesh port carries one link
            port = cable.end_of(host).port
            for address in network.interface(port).ipv4:
                network.delete_address(port, address)
        apply_linux(request, plan, host, network, lab_hosts_file(lab, host))
    return plan


def test_truenas_lists_nas_cable_ports_and_tengig_reads_them_through_middlewared(nas, bare_lab):
    names = {i["name"] for i in _call(nas, "interface.query")}
    assert set(NAS_PORTS) <= names, names
    nics = _call(nas, "tengig.nic.query", json.dumps({"system": "truenas"}))
    assert set(NAS_PORTS) <= {n["name"] for n in nics}


def test_mesh_apply_through_truenas_puts_the_plan_in_nas_kernel_and_database(nas, bare_lab):
    lab, request = bare_lab, _request(bare_lab)
    plan = _peers_ready(lab, MeshRequest.model_validate(request))
    result = _call(nas, "-j", "tengig.mesh.apply", json.dumps(request),
                   json.dumps({"system": "truenas", "hosts": ["nas"], "checkin_timeout": 60}), timeout=300)
    assert result[0]["host"] == "nas" and result[0]["changed"], result
    wanted = _planned(plan)
    assert _kernel(lab) == wanted
    assert _database(nas) == wanted
    assert _call(nas, "interface.has_pending_changes") is False and _call(nas, "interface.checkin_waiting") is None
    # desk reaches nas over the new subnet, with a jumbo frame that may not be fragmented
    cable = next(c for c in plan.cables_of("nas") if c.far_end_of("nas").host == "desk")
    ping = lab.run("desk", ["ping", "-c", "1", "-W", "2", "-M", "do", "-s", str(9000 - 28),
                            cable.end_of("nas").address], timeout=10, check=False)
    assert ping.returncode == 0, ping.stdout + ping.stderr


SESSION_APPLY = """
import json, sys
from tengig.client import connect
from tengig.client.errors import ClientError
url, key, user, request, options = sys.argv[1:6]
with connect(url, key, username=user, plain_key_in_clear=True) as client:  # the stand-in login keeps keys
    try:
        client.call("tengig.mesh.apply", json.loads(request), json.loads(options), job=True)
        print(json.dumps({"fields": []}))
    except ClientError as exc:
        print(json.dumps({"fields": [f for f, _ in exc.field_errors], "error": str(exc)}))
"""


def test_an_apply_from_a_session_on_a_port_it_changes_is_refused_unless_confirmed(nas, bare_lab):
    """A person on desk, logged in to this TrueNAS over desk's cable (as the panel is), asks for a new plan:
    it would change eth-desk, the interface that person's session arrives on (TrueNAS's
    interface.websocket_interface, given the caller's connection), so it is refused naming
    confirm_session_interface, and nothing is staged."""
    from .conftest import TEST_USER

    lab = bare_lab
    before = _kernel(lab)
    address = next(a.split("/")[0] for a in before["eth-desk"]["inet"])
    done = lab.run("desk", [sys.executable, "-c", SESSION_APPLY, f"ws://{address}:{nas.port}", TEST_API_KEY, TEST_USER,
                            json.dumps(_request(lab, prefix=31)),
                            json.dumps({"system": "truenas", "hosts": ["nas"], "checkin_timeout": 20})],
                   timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["fields"] == ["confirm_session_interface"], answer
    assert "eth-desk" in answer["error"], answer
    assert _kernel(lab) == before and _call(nas, "interface.has_pending_changes") is False


def _job(nas, method):
    jobs = _call(nas, "core.get_jobs", json.dumps([["method", "=", method]]))
    return jobs[-1] if jobs else None


def test_the_panels_countdown_path_keeps_the_change_when_confirmed(nas, bare_lab):
    """wait_for_checkin, as the panel applies: TrueNAS commits, tengig's probe answers, then the job counts
    down in progress.extra.checkin until tengig.mesh.checkin arrives; TrueNAS then gets interface.checkin."""
    lab = bare_lab
    request = _request(lab, prefix=31)
    plan = _peers_ready(lab, MeshRequest.model_validate(request))
    started = _job(nas, "tengig.mesh.apply")
    run = subprocess.Popen([str(nas.build.midclt), "-u", nas.socket_uri, "call", "-j", "tengig.mesh.apply",
                            json.dumps(request), json.dumps({"system": "truenas", "hosts": ["nas"],
                                                             "checkin_timeout": 60, "wait_for_checkin": True})],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        countdown = None
        for _ in range(240):
            job = _job(nas, "tengig.mesh.apply")
            if job and job["id"] != (started or {}).get("id") and (job["progress"].get("extra") or {}).get("checkin"):
                countdown = job["progress"]["extra"]["checkin"]
                break
            time.sleep(0.25)
        assert countdown and 0 < countdown["seconds_left"] <= 60, countdown
        assert _kernel(lab) == _planned(plan)  # committed while it waits
        assert _call(nas, "tengig.mesh.checkin") is True
        out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err[-2000:]
    assert _kernel(lab) == _database(nas) == _planned(plan)
    assert _call(nas, "interface.checkin_waiting") is None


def test_a_replan_that_moves_subnets_between_ports_goes_through(nas, bare_lab):
    """Back from /31 links to /30: a port's new subnet covers what another port holds now. TrueNAS checks
    each staged update against the others' saved addresses; tengig empties the re-addressed ports first in
    the same staged change, so the one commit goes through."""
    lab = bare_lab
    request = _request(lab, prefix=30)
    plan = _peers_ready(lab, MeshRequest.model_validate(request))
    result = _call(nas, "-j", "tengig.mesh.apply", json.dumps(request),
                   json.dumps({"system": "truenas", "hosts": ["nas"], "checkin_timeout": 60}), timeout=300)
    assert result[0]["changed"], result
    assert _kernel(lab) == _database(nas) == _planned(plan)


def test_a_probe_that_fails_leaves_truenas_rollback_to_restore_kernel_and_database(nas, bare_lab):
    """A new plan (its links moved out of the current ones' range) while desk's end is down: nas's ping to
    desk gets no answer, the job fails naming that cable, and TrueNAS's interface.rollback puts the previous
    addresses back."""
    lab = bare_lab
    before_kernel, before_database = _kernel(lab), _database(nas)
    assert before_kernel == before_database and all(v["inet"] for v in before_kernel.values())
    lab_network(lab, "desk").set_up("eth-nas", False)
    try:
        moved = _request(lab, prefix=30, existing_networks=[_network_of(before_kernel)])
        done = nas.midclt("call", "-j", "tengig.mesh.apply", json.dumps(moved),
                          json.dumps({"system": "truenas", "hosts": ["nas"], "checkin_timeout": 10}), timeout=300)
    finally:
        lab_network(lab, "desk").set_up("eth-nas", True)
    assert done.returncode != 0
    assert "-> desk" in done.stderr and "previous network configuration is back" in done.stderr, done.stderr[-2000:]
    assert _kernel(lab) == before_kernel
    assert _database(nas) == before_database
    assert _call(nas, "interface.has_pending_changes") is False and _call(nas, "interface.checkin_waiting") is None


def test_a_lagg_on_a_kernel_without_bonding_fails_with_truenas_reason_and_leaves_nothing(nas, bare_lab):
    """tengig.lagg.apply through TrueNAS: the members' own config cleared (interface.delete) and the bond
    created (interface.create LINK_AGGREGATION), committed. This kernel has no bonding driver, so TrueNAS's
    interface.sync cannot make bond0 (it logs why and goes on); interface.query then shows bond0 only from
    its saved configuration ('fake'). The job fails at once saying so, TrueNAS's rollback puts the members'
    addresses back, and no bond0 is left in the kernel or the database."""
    lab = bare_lab
    before_kernel, before_database = _kernel(lab), _database(nas)
    nics = _call(nas, "tengig.nic.query", json.dumps({"system": "truenas", "include_virtual": True}))
    request = {"nics": nics, "platform": "truenas-scale", "topology": "lacp-switch",
               "goal": "aggregate-many-clients",
               "options": {"members": list(NAS_PORTS), "address": "10.77.0.1/24", "clear_member_config": True}}
    done = nas.midclt("call", "-j", "tengig.lagg.apply", json.dumps(request),
                      json.dumps({"system": "truenas", "probe_address": "10.77.0.2", "checkin_timeout": 30}),
                      timeout=300)
    assert done.returncode != 0
    assert "could not create bond0 in the kernel" in done.stderr, done.stderr[-2000:]
    assert "has no bonding driver" in done.stderr and "did not answer" not in done.stderr, done.stderr[-2000:]
    assert _kernel(lab) == before_kernel and _database(nas) == before_database
    assert not [i for i in _call(nas, "interface.query") if i["name"].startswith("bond")]
    links = subprocess.run(["ip", "-n", lab.netns("nas"), "-j", "link", "show"], capture_output=True, text=True,
                           check=True, timeout=30)
    assert not [i for i in json.loads(links.stdout) if i["ifname"].startswith("bond")]
    assert _call(nas, "interface.has_pending_changes") is False and _call(nas, "interface.checkin_waiting") is None
