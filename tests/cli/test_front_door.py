"""One front door: `tengig mesh ...`, `tengig lagg ...` and `tengig nic` call tengig's API (the services the
panel calls), and the calls they make are the panel's for the same action: the same methods, the same
params, the request the same model, options the panel's own keys (panel_calls.py reads them from ui/src).

The API calls are recorded on the client the commands hold (tengig.client.Client.call: what goes on the
wire to the in-process API). Calls that would act on the lab (jobs on system lab, the lab's ports) are
answered with what the panel's fixtures recorded on the lab through the same API (ui/src/fixtures);
everything else runs in the in-process services. Nothing is changed or measured."""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tengig.api.models.lagg import TenGigLaggApplyOptions, TenGigLaggVerifyOptions
from tengig.api.models.mesh import TenGigMeshApplyOptions, TenGigMeshVerifyOptions
from tengig.cli.main import main
from tengig.client.client import Client
from tengig.lagg.request import LaggRequest
from tengig.mesh.request import MeshRequest

from ..lagg.layouts import seed001
from .panel_calls import call_site_keys, fixture, interface_fields, panel_call, recorded

CLI = Path(__file__).resolve().parents[2] / "middleware" / "tengig" / "cli"
MESH_VIEW, LAGG_VIEW = "features/mesh/MeshPanel.vue", "features/lagg/LaggPanel.vue"


@dataclass
class Sent:
    method: str
    params: list[Any]
    job: bool


@pytest.fixture
def wire(monkeypatch):
    """Every tengig.* call the commands send, in order; ``answers``: method -> the answer given instead of
    calling it (what would act on the lab)."""
    sent: list[Sent] = []
    answers: dict[str, Any] = {}
    real = Client.call

    def recording(self, method, *params, job=False, callback=None, timeout=None):
        if method.startswith("tengig."):
            sent.append(Sent(method, json.loads(json.dumps(params)), job))
        if method not in answers:
            return real(self, method, *params, job=job, callback=callback, timeout=timeout)
        if callback is not None:
            callback({"id": 1, "method": method, "progress": {"percent": 100, "description": "answered by the test"}})
        return answers[method]

    monkeypatch.setattr(Client, "call", recording)
    return sent, answers


def _file(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def _the_panels(sent: list[Sent], *functions: str) -> None:
    """The commands sent what the panel's ``functions`` send, in that order: method, job or not, params."""
    panel = [panel_call(f) for f in functions]
    assert [(s.method, s.job, len(s.params)) for s in sent] == [(p.method, p.job, len(p.params)) for p in panel]


def _mesh_request() -> dict[str, Any]:
    return recorded("mesh")["request"]


def test_mesh_plan_render_and_labels_call_what_the_panel_calls(wire, tmp_path, capsys):
    sent, _ = wire
    request = _file(tmp_path, "mesh.json", _mesh_request())
    assert main(["mesh", "plan", "--request", request]) == 0
    assert main(["mesh", "render", "--request", request, "desk"]) == 0
    assert main(["mesh", "labels", "--request", request]) == 0
    _the_panels(sent, "meshPlan", "meshRender", "meshPlan")
    assert all(s.params[0] == _mesh_request() for s in sent)  # the request as the panel sends it
    assert sent[1].params[1] == "desk"
    out = capsys.readouterr().out
    assert "3 hosts, 3 cables, 6 ports; cost 120.00 USD" in out and "# --- /etc/netplan/" in out


def test_mesh_apply_on_the_lab_calls_what_the_panel_calls(wire, tmp_path, capsys):
    sent, answers = wire
    answers["tengig.mesh.apply"] = [{"host": h, "changed": True, "changes": [f"{h}: eth-x: address none -> ..."],
                                     "persistent": False, "hosts_file": "/etc/hosts"} for h in ("nas", "desk", "lab")]
    assert main(["mesh", "apply", "--request", _file(tmp_path, "mesh.json", _mesh_request())]) == 0
    _the_panels(sent, "startMeshApply")
    request, options = sent[0].params
    assert request == _mesh_request()
    assert set(options) <= call_site_keys(MESH_VIEW, "startMeshApply")
    # the panel's system 'lab'; no hosts named: every plan host the lab reaches (the panel ticks them all)
    assert TenGigMeshApplyOptions.model_validate(options) == TenGigMeshApplyOptions(system="lab")
    out = capsys.readouterr().out
    assert "nas: nas: eth-x: address none -> ..." in out and "runtime only: install the rendered file" in out


def test_mesh_verify_on_the_lab_calls_what_the_panel_calls(wire, tmp_path, capsys):
    sent, answers = wire
    answers["tengig.mesh.verify"] = fixture("mesh-verify-lab.json")
    panel = recorded("mesh")
    assert main(["mesh", "verify", "--request", _file(tmp_path, "mesh.json", _mesh_request()), "--seconds",
                 str(panel["verify_options"]["seconds"])]) == 0
    _the_panels(sent, "startMeshVerify")
    request, options = sent[0].params
    assert request == panel["request"]
    assert set(options) <= call_site_keys(MESH_VIEW, "startMeshVerify") <= interface_fields("MeshVerifyOptions")
    ours, theirs = (TenGigMeshVerifyOptions.model_validate(o) for o in (options, panel["verify_options"]))
    assert ours.model_dump(exclude={"hosts"}) == theirs.model_dump(exclude={"hosts"})
    assert ours.hosts == [] and theirs.hosts == ["nas", "desk", "lab"]  # every plan host the lab reaches
    assert capsys.readouterr().out.splitlines()[-1] == "mesh verified: every link works"


def test_lagg_plan_and_validate_call_what_the_panel_calls(wire, tmp_path, capsys):
    sent, _ = wire
    request = _file(tmp_path, "lagg.json", seed001("linux"))
    assert main(["lagg", "plan", "--request", request]) == 0
    assert main(["lagg", "validate", "--request", request]) == 0
    _the_panels(sent, "laggPlan", "laggValidate")
    assert all(s.params[0] == seed001("linux") for s in sent)
    assert capsys.readouterr().out.endswith("valid\n")


def _lab_lagg_request() -> dict[str, Any]:
    """The request the panel planned and measured the lab's LAGG with (its ports from tengig.nic.query)."""
    lagg = recorded("lagg")
    return {**lagg["request"], "nics": fixture(lagg["request"]["nics"])}


def test_lagg_verify_on_the_lab_calls_what_the_panel_calls(wire, capsys):
    """Without --request: the lab NAS's ports (tengig.nic.query), the plan, then the measurement, as the
    panel's LAGG view loads the ports, plans and measures; the request and options are the panel's."""
    sent, answers = wire
    panel = recorded("lagg")
    answers["tengig.nic.query"] = fixture(panel["request"]["nics"])
    answers["tengig.lagg.verify"] = fixture("lagg-verify-lab.json")
    options = panel["verify_options"]
    assert main(["lagg", "verify", "--clients", str(panel["request"]["client_count"]), "--client", options["client"],
                 "--seconds", str(options["seconds"])]) == 0
    _the_panels(sent, "nics", "laggPlan", "startLaggVerify")
    assert set(sent[0].params[0]) <= call_site_keys(LAGG_VIEW, "nics") and sent[0].params[0]["system"] == "lab"
    plan_request, (request, ours) = sent[1].params[0], sent[2].params
    assert plan_request == request  # measured against the plan it printed
    assert set(request) <= interface_fields("LaggRequest")
    assert LaggRequest.model_validate(request) == LaggRequest.model_validate(_lab_lagg_request())
    assert set(ours) <= interface_fields("LaggVerifyOptions")
    ours, theirs = (TenGigLaggVerifyOptions.model_validate(o) for o in (ours, options))
    assert ours.model_dump(exclude={"omit"}) == theirs.model_dump(exclude={"omit"})  # the panel's form sets omit
    plan = fixture("lagg-plan-lab.json")  # what tengig.lagg.plan answered the panel for it
    out = capsys.readouterr().out
    assert out.startswith(f"{plan['name']} ({plan['protocol']}, members eth-desk, eth-lab) measured from desk to nas "
                          "10.250.12.1:\nread 1 flow: 941.4 Mb/s"), out


def test_lagg_verify_with_a_request_file_plans_and_measures_as_the_panel(wire, tmp_path):
    sent, answers = wire
    answers["tengig.lagg.verify"] = fixture("lagg-verify-lab.json")
    request = _lab_lagg_request()
    assert main(["lagg", "verify", "--request", _file(tmp_path, "lagg.json", request), "--seconds", "2"]) == 0
    _the_panels(sent, "laggPlan", "startLaggVerify")
    assert sent[1].params == [request, {"seconds": 2}]


def test_lagg_apply_on_this_machine_calls_what_the_panel_calls(wire, tmp_path, capsys):
    sent, answers = wire
    answers["tengig.lagg.apply"] = {"name": "bond0", "ran": [["ip", "link", "add"]] * 3, "api_calls": []}
    assert main(["lagg", "apply", "--request", _file(tmp_path, "lagg.json", seed001("linux"))]) == 0
    _the_panels(sent, "startLaggApply")
    request, options = sent[0].params
    assert request == seed001("linux") and set(options) <= interface_fields("LaggApplyOptions")
    # the panel's apply form on this machine sends exactly this (laggApply.ts, system 'local')
    assert TenGigLaggApplyOptions.model_validate(options) == TenGigLaggApplyOptions(system="local")
    assert capsys.readouterr().out == "bond0 created (3 commands)\n"


def test_lagg_verify_measurements_are_analysed_by_the_service(wire, tmp_path, capsys):
    """--measurements: tengig.lagg.analyse (the panel has no such view: tengig call's and the API's)."""
    sent, _ = wire
    measurements = {"results": [{"direction": "read", "flows": 1, "bps": 9.4e9}], "counters": []}
    assert main(["lagg", "verify", "--request", _file(tmp_path, "lagg.json", seed001("linux")), "--measurements",
                 _file(tmp_path, "measured.json", measurements)]) == 0
    assert [(s.method, s.job, s.params) for s in sent] == [("tengig.lagg.analyse", False,
                                                            [seed001("linux"), measurements])]
    assert "read 1 flow" in capsys.readouterr().out


def test_nic_calls_what_the_panel_calls(wire, capsys):
    sent, answers = wire
    answers["tengig.nic.query"] = fixture("lagg-nics-lab.json")
    assert main(["nic", "--lab-host", "nas"]) == 0
    _the_panels(sent, "nics")
    assert sent[0].params == [{"system": "lab", "host": "nas"}]  # the panel's, for the lab's NAS
    assert capsys.readouterr().out.startswith("eth-desk ")


def test_an_answer_that_names_api_fields_names_the_flags(wire, tmp_path, capsys):
    """The service's refusal comes out as one line naming the command's flag (options.hosts.0 -> --local),
    a request file's field as the file spells it, no traceback."""
    request = _file(tmp_path, "mesh.json", _mesh_request())
    assert main(["mesh", "verify", "--request", request, "--local", "nohost"]) == 2
    assert capsys.readouterr().err == "error: --local: 'nohost' is not a host of the plan (desk, lab, nas)\n"
    broken = {**seed001("linux"), "platform": "plan9"}
    assert main(["lagg", "plan", "--request", _file(tmp_path, "lagg.json", broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: platform: Input should be ") and len(err.splitlines()) == 1, err


# What the commands called themselves before they went through the API: the domain's entry points, and
# the choice of where to act that the services make.
DOMAIN_ENTRY_POINTS = {
    "plan_mesh", "render_host", "apply_mesh", "verify_on", "verify_joined_on", "hosts_to_act_on", "parse_request",
    "plan_lagg", "render", "apply_bond", "bonding_support", "analyse", "choose_endpoints",
    "refuse_iproute2_on_truenas", "truenas_here", "lagg_system", "mesh_system", "linux_nics", "lab_nics",
    "LocalMeshSystem", "LabMeshSystem", "BenchContext", "Runner", "with_ctrl_c",
}


@pytest.mark.parametrize("module", ["mesh_commands.py", "lagg_commands.py"])
def test_the_commands_import_no_domain_entry_point(module):
    tree = ast.parse((CLI / module).read_text())
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert not imported & DOMAIN_ENTRY_POINTS, sorted(imported & DOMAIN_ENTRY_POINTS)
    assert {"call"} <= imported  # through the front door (front_door.py)
