"""The plugin in TrueNAS's real middlewared (25.10.6 and 25.04.2.6, from source), installed by tengig's
installer, driven with the official midclt: every method listed, a query, a plan, a job with
progress, and the panel at /_plugins/tengig/."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tengig.plugin_spec import build_plan, method_names

MESH_REQUEST = {"hosts": [
    {"name": "nas", "kind": "truenas-scale", "ports": [{"name": "enp3s0f0", "speed_bps": "10g"},
                                                       {"name": "enp3s0f1", "speed_bps": "10g"}]},
    {"name": "desk", "kind": "linux", "ports": [{"name": "enp4s0f0", "speed_bps": "10g"},
                                                 {"name": "enp4s0f1", "speed_bps": "10g"}]},
    {"name": "lab", "kind": "linux", "ports": [{"name": "enp5s0f0", "speed_bps": "10g"},
                                                {"name": "enp5s0f1", "speed_bps": "10g"}]}]}


def _get(url: str) -> tuple[int, bytes, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


def test_the_installer_said_what_it_did(truenas):
    assert truenas.install_message.startswith("tengig ") and "installed" in truenas.install_message
    assert any("import test" in line for line in truenas.install_lines)
    assert (truenas.plugins_dir / "tengig_plugin.py").is_file()
    assert "tengig plugin not loaded" not in truenas.log()


def test_midclt_lists_every_tengig_method_with_middlewared_schemas(truenas):
    methods = truenas.methods()
    served = sorted(name for name in methods if name.startswith("tengig."))
    assert served == method_names(build_plan())
    run = methods["tengig.bench.run"]
    assert run["job"] is True and "FULL_ADMIN" in run["roles"] or run["roles"]
    assert isinstance(run["accepts"], list) and run["accepts"][0]["_name_"] == "request"
    assert methods["tengig.targets.query"]["job"] is False


def test_midclt_calls_a_query_and_a_plan(truenas):
    done = truenas.midclt("call", "tengig.targets.query")
    assert done.returncode == 0, done.stderr
    targets = {t["name"]: t for t in json.loads(done.stdout)}
    assert targets["hdd-15k-best"]["read_bytes_per_s"] == 223.4e6

    done = truenas.midclt("call", "tengig.mesh.plan", json.dumps(MESH_REQUEST))
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert len(plan["cables"]) == 3 and plan["diagram"]["edges"]


def test_validation_errors_keep_their_field_paths(truenas):
    bad = json.loads(json.dumps(MESH_REQUEST))
    bad["hosts"][1]["ports"].pop()
    done = truenas.midclt("call", "tengig.mesh.plan", json.dumps(bad))
    assert done.returncode != 0
    assert "request.hosts.1.ports" in done.stderr + done.stdout


def test_the_panel_is_served_at_the_plugin_route(truenas):
    status, body, headers = _get(f"{truenas.http_url}/_plugins/tengig/")
    assert status == 200 and b"<title>tengig</title>" in body
    asset = body.split(b'src="./', 1)[1].split(b'"', 1)[0].decode()
    status, script, headers = _get(f"{truenas.http_url}/_plugins/tengig/{asset}")
    assert status == 200 and len(script) > 10_000 and headers.get("X-Content-Type-Options") == "nosniff"
    for bad in ("../../../etc/passwd", "index.html%00.js", ".hidden", "assets/" + "a" * 300 + ".js", "nope.js"):
        status, _, _ = _get(f"{truenas.http_url}/_plugins/tengig/{bad}")
        assert status == 404, bad


@pytest.mark.lab
def test_midclt_runs_a_job_with_progress_on_the_lab(truenas, shaped_lab):
    done = truenas.midclt("call", "-j", "-jp", "description", "tengig.bench.run",
                          json.dumps({"kind": "network", "clients": ["desk"], "net_seconds": 1}), timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["state"] == "succeeded" if "state" in result else True
    progress = done.stdout + done.stderr
    assert "%" in progress
