"""LAGG and mesh verify on the NAS tengig runs on, with the desktops that join (issue 25, item 4), on the
lab as three machines: a bare lab (desk-nas and lab-nas at 1 Gb/s, desk-lab at 100 Mb/s) with the mesh
planned from its cables applied, `tengig serve` on nas (system local, in nas's own /etc), and
`tengig client join` on desk and lab, each over its own cable, as a person runs them at each machine.

The lab's kernel has no bonding driver: the LAGG's members are nas's two cable ports, each desktop
reaching nas through the one its cable is on (the result names this as emulated); the counters read are
each port's own. The mesh's verify measures desk-lab (100 Mb/s) with the two desktops themselves (one serves,
the other connects). Tests run 1 s of iperf3 (no warm-up left out) on 1 Gb/s and 100 Mb/s shaped links."""
from __future__ import annotations

import json
import os
import re
import sys
import threading
from pathlib import Path

import pytest

from tengig.client.errors import ClientError
from tengig.lab import Lab, build_spec
from tengig.lab.mesh_adapter import LabMeshSystem, lab_mesh_request
from tengig.lab.nas_tengig import TENGIG, nas_tengig, start_join
from tengig.lab.nics import lab_nics
from tengig.mesh import plan_mesh
from tengig.mesh.orchestrate import apply_mesh
from .lagg_status import status_by_figures
from .running import in_lab_hosts

pytestmark = pytest.mark.lab
LINKS = ["desk-nas=1g", "lab-nas=1g", "desk-lab=100m"]
PORT = 8612
CLI_PORT = 8613
GOODPUT_1G = 941e6  # TCP goodput of a 1 Gb/s link at MTU 1500 (docs/physics.md §1)
FAST = {"seconds": 1, "omit": 0}


@pytest.fixture(scope="module")
def meshed_lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(LINKS, bare=True))
    request = lab_mesh_request(lab)
    apply_mesh(LabMeshSystem(lab), request)
    yield lab, request, plan_mesh(request)
    lab.down()


@pytest.fixture(scope="module")
def nas(meshed_lab, tmp_path_factory):
    """tengig serve on nas; yields (its API as root, {desktop: the URL it joins with, over its own cable})."""
    lab, _, plan = meshed_lab
    tmp = tmp_path_factory.mktemp("nas")
    with nas_tengig(lab, tmp / "nas.sqlite3", socket=tmp / "nas.sock", port=PORT, own_etc=True,
                    log_name="test-verify-nas.log") as (api, _):
        yield api, {c.far_end_of("nas").host: f"ws://{c.end_of('nas').address}:{PORT}" for c in plan.cables_of("nas")}


def _lagg_request(lab, **options):
    nics = [n.model_dump(mode="json") for n in lab_nics(lab, "nas")]
    return {"nics": nics, "platform": "linux", "topology": "lacp-switch", "goal": "aggregate-many-clients",
            "client_count": 4, "options": {"clear_member_config": True, **options}}


def _start(api, method: str, *params):
    """The job in a thread; returns (thread, outcome, the token once shown)."""
    outcome: dict = {"events": []}
    shown = threading.Event()

    def progress(job):
        outcome["events"].append(job.get("progress") or {})
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session and "token" not in outcome:
            outcome["token"] = session["token"]
            shown.set()

    def body():
        try:
            outcome["result"] = api.call(method, *params, job=True, callback=progress, timeout=600)
        except ClientError as exc:
            outcome["error"] = exc
        shown.set()

    thread = threading.Thread(target=body)
    thread.start()
    assert shown.wait(60), "the job never showed its join token"
    return thread, outcome


def _joined_run(lab, urls, api, method, *params, desktops=("desk", "lab")):
    thread, outcome = _start(api, method, *params)
    assert "error" not in outcome, outcome["error"]
    joins = [start_join(lab, d, urls[d], outcome["token"], smb=False, log_name=f"test-verify-join-{d}.log")
             for d in desktops]
    thread.join(300)
    for d, proc in zip(desktops, joins):
        assert proc.wait(30) == 0, (lab.paths.logs / f"test-verify-join-{d}.log").read_text()
    assert "error" not in outcome, outcome["error"]
    return outcome


def _nothing_left(lab):
    assert in_lab_hosts(lab, "iperf3") == [], "an iperf3 was left running in the lab's hosts"


def test_lagg_verify_on_system_local_with_two_desktops_joined(meshed_lab, nas):
    lab, _, _ = meshed_lab
    api, urls = nas
    outcome = _joined_run(lab, urls, api, "tengig.lagg.verify", _lagg_request(lab),
                          {"system": "local", "join": 2, **FAST})
    result = outcome["result"]
    assert (result["nas"], result["lagg"], result["members"]) == ("nas", "bond1", ["eth-desk", "eth-lab"])
    assert "no interface bond1" in result["emulated"] and "each port's own" in result["emulated"]
    by_client = {d["client"]: d for d in result["desktops"]}
    assert set(by_client) == {"desk", "lab"}
    for name, port, idle in (("desk", "eth-desk", "eth-lab"), ("lab", "eth-lab", "eth-desk")):
        alone = by_client[name]
        assert alone["nas_port"] == port
        tests = alone["measurements"]["results"]
        assert [(t["direction"], t["flows"]) for t in tests] == [("read", 1), ("write", 1), ("read", 4), ("write", 4)]
        for test, window in zip(tests, alone["measurements"]["counters"]):
            member = next(m for m in window["members"] if m["name"] == port)
            moved = member["tx_bytes"] if test["direction"] == "read" else member["rx_bytes"]
            assert moved >= test["bps"] / 8 * 0.9  # the NAS's own counters carried what the desktop measured
        # which member carried this desktop's flows: its own port; the other one idle, in every test
        assert all(b["idle"] == [idle] for b in alone["verdict"]["balance"])
        one_read, one_write, many_read, many_write = alone["verdict"]["comparisons"]
        # each judged by its own figures (one flow is as expected on an idle machine; a busy one can hold it
        # short), four flows from one desktop short of the plan's two members, the reason naming its port
        assert all(c["status"] == status_by_figures(c) for c in alone["verdict"]["comparisons"]), alone["verdict"]
        assert many_read["status"] in ("low-end", "below") and f"{port} carried 100% of the bytes" in many_read["reason"]
    together = result["together"]
    assert sorted(together["clients"]) == ["desk", "lab"] and together["streams_each"] == 4  # in join order
    for test, balance in zip(together["measurements"]["results"], together["verdict"]["balance"]):
        assert test["flows"] == 8
        # both members carry, each desktop's flows on its own port (what each carried is the machine's load:
        # no rate or share bound here)
        assert not balance["idle"] and all(s["share"] > 0 for s in balance["shares"]), balance
    assert {c["direction"] for c in together["verdict"]["comparisons"]} == {"read", "write"}
    assert f"{', '.join(together['clients'])} at once: read 8 flows" in result["summary"] and "Gb/s" in result["summary"]
    waiting = [e for e in outcome["events"] if "waiting for 2 of 2 client(s)" in (e.get("description") or "")]
    assert waiting and outcome["token"] in waiting[0]["description"]
    _nothing_left(lab)


def test_mesh_verify_with_the_peers_joined(meshed_lab, nas):
    lab, request, plan = meshed_lab
    api, urls = nas
    outcome = _joined_run(lab, urls, api, "tengig.mesh.verify", request.model_dump(mode="json"),
                          {"system": "local", "hosts": ["nas"], "join": 2, "min_percent": 80, **FAST})
    result = outcome["result"]
    assert [(link["host"], link["peer"]) for link in result["links"]] == [("nas", "desk"), ("nas", "lab")]
    assert all(link["ping_ok"] and link["df_ok"] and link["name_ok"] for link in result["links"]), result["links"]
    pairs = {(m["sender"], m["receiver"]): m for m in result["matrix"]}
    # the n x (n-1) matrix: nas's cables against its own server and port, desk-lab by the two desktops
    assert set(pairs) == {(s, r) for s in ("nas", "desk", "lab") for r in ("nas", "desk", "lab") if s != r}
    assert result["unmeasured"] == []
    for (sender, receiver), m in pairs.items():
        # measured, and judged by its own figures against the 80% asked (how close a 1 s test comes to the
        # ceiling is the machine's load, not the verify's: a busy core held one at 79%)
        assert m["received_bytes"] > 0, m
        assert m["reaches_ceiling"] == (m["goodput_bps"] >= 0.80 * m["ceiling_bps"]), m
        if "nas" in (sender, receiver):
            assert m["ceiling_bps"] == pytest.approx(GOODPUT_1G, rel=0.01) and "port eth-" in m["witness"], m
    desk_lab = next(c for c in plan.cables if {c.a.host, c.b.host} == {"desk", "lab"})
    for sender, receiver in (("desk", "lab"), ("lab", "desk")):
        m = pairs[(sender, receiver)]
        assert m["cable"] == desk_lab.id and m["ceiling_bps"] == pytest.approx(desk_lab.goodput_bps)
        served = int(re.search(r"iperf3 server: (\d+) bytes", m["witness"]).group(1))
        # the other desktop's server moved them (over its own window, which ends after the client's)
        assert served >= 0.95 * m["received_bytes"], m
    # every direction short of 80% and every cable whose directions differ is a problem in words (a busy
    # machine may make either), nothing else is, and the verify is ok exactly when there is none
    named = [f"{m['sender']} -> {m['receiver']} over {m['cable']}: " for m in result["matrix"] if not m["reaches_ceiling"]]
    named += [f"{a['cable']}: directions differ by " for a in result["asymmetric"]]
    assert all(sum(p.startswith(n) for p in result["problems"]) == 1 for n in named), (named, result["problems"])
    assert len(result["problems"]) == len(named), result["problems"]
    for cable in {m["cable"] for m in result["matrix"]}:
        one, other = [m["goodput_bps"] for m in result["matrix"] if m["cable"] == cable]
        differ = abs(one - other) / max(one, other) > 0.10
        assert differ == (cable in {a["cable"] for a in result["asymmetric"]}), (cable, one, other)
    assert result["ok"] == (not result["problems"]), result["problems"]
    _nothing_left(lab)


def test_bad_input_is_named_and_nothing_is_left_running(meshed_lab, nas):
    lab, request, _ = meshed_lab
    api, urls = nas
    for options, field in (({"system": "local", "join": 17}, "options.join"),
                           ({"system": "local", "join": 0}, "options.join")):
        with pytest.raises(ClientError) as err:
            api.call("tengig.lagg.verify", _lagg_request(lab), options, job=True, timeout=60)
        assert field in str(err.value.field_errors), err.value
    for options, field, words in (
            ({"system": "local"}, "options.join", "say how many"),
            ({"system": "local", "join": 1, "client": "desk"}, "options.client", "leave it out"),
            ({"system": "lab", "join": 1}, "options.system", "tengig serve on its nas")):
        with pytest.raises(ClientError) as err:
            api.call("tengig.lagg.verify", _lagg_request(lab), options, job=True, timeout=60)
        assert [f for f, _ in err.value.field_errors] == [field] and words in str(err.value), err.value
    with pytest.raises(ClientError) as err:
        api.call("tengig.mesh.verify", request.model_dump(mode="json"), {"system": "local", "hosts": ["nas", "desk"],
                                                                         "join": 1}, job=True, timeout=60)
    assert "options.hosts" in str(err.value)
    # a peer that joins under a name the plan does not have: refused naming join, before anything is measured
    thread, outcome = _start(api, "tengig.mesh.verify", request.model_dump(mode="json"),
                             {"system": "local", "hosts": ["nas"], "join": 1, **FAST})
    stranger = lab.spawn("desk", [*TENGIG, "client", "join", urls["desk"], "--token", outcome["token"], "--name",
                                  "printer"], log_name="test-verify-stranger.log")
    thread.join(120)
    assert stranger.wait(30) != 0  # it hears the run stopped
    assert "options.join" in str(outcome["error"].field_errors) and "'printer'" in str(outcome["error"]), outcome
    assert "--name HOST" in str(outcome["error"])
    # nobody joins in time: the job fails naming join, and the session ended
    with pytest.raises(ClientError) as err:
        api.call("tengig.lagg.verify", _lagg_request(lab), {"system": "local", "join": 1, "join_timeout": 10},
                 job=True, timeout=120)
    assert "waited 10 s for 1 client(s) to join" in str(err.value) and "(join)" in str(err.value)
    _nothing_left(lab)


@pytest.mark.abuse
def test_a_desktop_that_lies_fails_the_verify(meshed_lab, nas):
    """A desktop that multiplies its iperf3 bytes by 10 (tests/bench/misbehaving_client.py, joined as desk)."""
    lab, _, _ = meshed_lab
    api, urls = nas
    thread, outcome = _start(api, "tengig.lagg.verify", _lagg_request(lab), {"system": "local", "join": 1, **FAST})
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{repo}:{repo / 'middleware'}"}
    liar = lab.spawn("desk", [sys.executable, "-m", "tests.bench.misbehaving_client", urls["desk"], outcome["token"],
                              "lie"], log_name="test-verify-liar.log", env=env)
    thread.join(300)
    liar.wait(30)
    assert "error" in outcome, "the verify took a desktop's lie"
    assert re.search(r"desk reports .* received in iperf3 read, but only .* crossed the NAS's port eth-desk",
                     str(outcome["error"])), outcome["error"]
    _nothing_left(lab)


def test_cli_lagg_verify_join_on_the_nas(meshed_lab, tmp_path):
    """`tengig lagg verify --join 1` run on nas hosts the join itself and prints the join command."""
    lab, _, plan = meshed_lab
    request = tmp_path / "lagg.json"
    request.write_text(json.dumps(_lagg_request(lab)))
    argv = [*TENGIG, "lagg", "verify", "--request", str(request), "--join", "1", "--port", str(CLI_PORT),
            "--seconds", "1", "--json"]
    log = lab.paths.logs / "test-verify-cli.log"
    log.unlink(missing_ok=True)
    cli = lab.spawn("nas", argv, log_name=log.name, stdout_pipe=True, env={**os.environ, "TENGIG_NAS_NAME": "nas"})
    try:
        token = None
        for _ in range(600):
            found = re.search(r"tengig client join ws://\S+ --token (tgb-[0-9a-f]+)", log.read_text())
            if found:
                token = found.group(1)
                break
            assert cli.poll() is None, log.read_text()
            threading.Event().wait(0.1)
        assert token, log.read_text()
        nas_on_desk = next(c.end_of("nas").address for c in plan.cables_of("nas") if c.far_end_of("nas").host == "desk")
        assert f"ws://{nas_on_desk}:{CLI_PORT}" in log.read_text()
        desk = start_join(lab, "desk", f"ws://{nas_on_desk}:{CLI_PORT}", token, smb=False,
                          log_name="test-verify-cli-desk.log")
        out, _ = cli.communicate(timeout=120)
        assert cli.returncode == 0, log.read_text()
        assert desk.wait(30) == 0
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
    doc = json.loads(out)
    assert [d["client"] for d in doc["desktops"]] == ["desk"] and doc["together"] is None
    assert doc["desktops"][0]["verdict"]["balance"][0]["idle"] == ["eth-lab"]
    bad = lab.run("nas", [*TENGIG, "lagg", "verify", "--request", str(request), "--join", "17"], timeout=60,
                  check=False)
    assert bad.returncode != 0 and "--join" in bad.stderr
    _nothing_left(lab)
