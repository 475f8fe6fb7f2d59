"""The plugin in TrueNAS's real middlewared (25.10.6 and 25.04.2.6, from source), installed by tengig's
installer, driven with the official midclt: every method listed, a query, a plan, and the panel at
/_plugins/tengig/. A job with progress, with a desktop that joins it: test_join_through_middlewared.py."""
from __future__ import annotations

import errno
import json
import urllib.error
import urllib.request

import pytest


from tengig.client.client import Client
from tengig.client.errors import ClientError
from tengig.plugin_spec import build_plan, method_names

from ..mesh.layouts import THREE_HOSTS_10G

MESH_REQUEST = THREE_HOSTS_10G


def http_get(url: str) -> tuple[int, bytes, dict]:
    """(status, body, headers) of a GET, an error status included."""
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


def test_desktops_join_through_the_plugin_without_a_login(truenas):
    """A desktop never logs in to middlewared: the plugin's tengig.bench.session.* take the run's token as
    their first param (authentication_required=False), and nothing else opens to such a connection.
    A whole run joined through middlewared: test_join_through_middlewared.py."""
    done = truenas.midclt("call", "tengig.bench.systems")
    assert done.returncode == 0, done.stderr
    assert {s["name"]: s["joins"] for s in json.loads(done.stdout)}["local"] is True
    with Client(f"ws://127.0.0.1:{truenas.port}/api/current") as desk:  # no login
        with pytest.raises(ClientError, match="join a bench session first"):
            desk.call("tengig.bench.session.next", 0)
        with pytest.raises(ClientError, match="refused the token"):
            desk.call("tengig.bench.session.join", "tgb-" + "0" * 48, {"hostname": "desk", "os": "linux"})
        with pytest.raises(ClientError) as refused:
            desk.call("tengig.bench.run", {"system": "local", "kind": "net", "join": 1})
        assert refused.value.errno == errno.EACCES or "authenticated" in str(refused.value).lower(), refused.value


def test_the_panel_is_served_at_the_plugin_route(truenas):
    status, body, headers = http_get(f"{truenas.http_url}/_plugins/tengig/")
    assert status == 200 and b"<title>tengig</title>" in body
    asset = body.split(b'src="./', 1)[1].split(b'"', 1)[0].decode()
    status, script, headers = http_get(f"{truenas.http_url}/_plugins/tengig/{asset}")
    assert status == 200 and len(script) > 10_000 and headers.get("X-Content-Type-Options") == "nosniff"
    for bad in ("../../../etc/passwd", "index.html%00.js", ".hidden", "assets/" + "a" * 300 + ".js", "nope.js"):
        status, _, _ = http_get(f"{truenas.http_url}/_plugins/tengig/{bad}")
        assert status == 404, bad


AGREEMENT = """
import json
from middlewared.api.base import BaseModel
from tengig.plugin_conformance import check_plugin, rule_of
from tengig.plugin_spec import build_plan
print(json.dumps({"with_base": check_plugin(build_plan(model_base=BaseModel)),
                  "plain": sorted({rule_of(v) for v in check_plugin(build_plan())})}))
"""


def test_the_conformance_check_agrees_with_real_middlewared(truenas):
    """Inside middlewared's interpreter: the plan middlewared serves (the fixture started it) conforms;
    the plain-pydantic plan that stopped middlewared at startup (test_installer) is refused, by the
    rule that names why."""
    import subprocess

    done = subprocess.run([str(truenas.python), "-c", AGREEMENT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    verdict = json.loads(done.stdout.strip().splitlines()[-1])
    assert verdict == {"with_base": [], "plain": ["model-base"]}
