"""The plugin in TrueNAS's real middlewared (25.10.6, 25.04.2.6 and 26.0.0-BETA.3, from source), installed by
tengig's installer, driven with the official midclt: every method listed, a query, a plan, a job, and the
panel at /_plugins/tengig/; tengig's own client over TCP. A job with progress, with a desktop that joins
it: test_join_through_middlewared.py."""
from __future__ import annotations

import errno
import json
import urllib.error
import urllib.request

import pytest


from tengig.client.client import Client
from tengig.client.errors import ClientError
from tengig.plugin_spec import build_plan, method_names

from ..api.test_seams import LAGG_REQUEST
from ..mesh.layouts import THREE_HOSTS_10G
from .conftest import truenas_with_tengig
from .harness import PLUGIN_VERSIONS

pytestmark = pytest.mark.realmw  # no lab: runs beside the lab's tests (scripts/test.sh)

MESH_REQUEST = THREE_HOSTS_10G


@pytest.fixture(scope="module", params=PLUGIN_VERSIONS)
def truenas(request, tmp_path_factory):
    """This module's TrueNAS: each SCALE version the plugin is for, 26.0 included (one start per version)."""
    return truenas_with_tengig(request.param, tmp_path_factory)


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


def test_results_md_export_and_delete_through_midclt(truenas):
    """tengig.results.export's md format takes one run id (the error names ids); tengig.results.delete answers
    ENOENT for a run that is not there: the new method and format as middlewared serves them."""
    done = truenas.midclt("call", "tengig.results.export", "md", "[1, 2]")
    assert done.returncode != 0 and "ids" in done.stderr + done.stdout and "exactly one run id" in done.stderr + done.stdout
    done = truenas.midclt("call", "tengig.results.delete", "999999")
    assert done.returncode != 0 and "run 999999 not found" in done.stderr + done.stdout, done.stderr
    methods = truenas.methods()
    assert "FULL_ADMIN" in methods["tengig.results.delete"]["roles"]


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


def _environment_of(pid: int) -> dict[str, str]:
    from pathlib import Path

    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").split("=", 1) for item in raw if b"=" in item)


def test_system_truenas_is_middlewared_itself_with_no_environment_variable(truenas):
    """Inside middlewared nothing names a TrueNAS (no TENGIG_TRUENAS_*: middlewared never sets them), and
    system truenas still reaches one: middlewared's own methods (the plugin hands its middleware object to
    the services' seams). This TrueNAS loads no interface plugin (tests/realmw/test_network_in_middlewared.py
    loads TrueNAS's own), so middlewared's own answer to interface.query comes back: its ENOMETHOD, not
    tengig's "no TrueNAS configured"."""
    assert not [name for name in _environment_of(truenas.pid()) if name.startswith("TENGIG_TRUENAS")]
    done = truenas.midclt("call", "tengig.nic.query", json.dumps({"system": "truenas"}))
    assert done.returncode != 0
    assert "no TrueNAS configured" not in done.stderr, done.stderr
    assert "interface.query" in done.stderr and "ENOMETHOD" in done.stderr, done.stderr[-2000:]


@pytest.mark.parametrize("method,request_,options", [
    ("tengig.mesh.apply", MESH_REQUEST, {"system": "local", "hosts": ["nas"]}),
    ("tengig.lagg.apply", LAGG_REQUEST, {"system": "local"}),
])
def test_an_apply_with_iproute2_inside_middlewared_is_refused_naming_system_truenas(truenas, method, request_, options):
    """tengig runs inside this TrueNAS's middlewared: changing its interfaces with iproute2 would go
    behind TrueNAS's back (its next interface.sync undoes it); the job fails naming system: truenas."""
    done = truenas.midclt("call", "-j", method, json.dumps(request_), json.dumps(options), timeout=120)
    assert done.returncode != 0
    assert "options.system" in done.stderr and "system: truenas" in done.stderr, done.stderr[-2000:]
    assert "inside this TrueNAS's middlewared" in done.stderr and "iproute2" in done.stderr


@pytest.mark.parametrize("options,field,said", [
    ({"system": "local", "join": 0}, "options.join", "greater than or equal to 1"),  # the plugin's declared model
    ({"system": "local"}, "options.join", "say how many"),
    ({"system": "local", "join": 1, "client": "desk"}, "options.client", "leave it out"),
    # accepted, and checked against this machine before anyone joins: the plan's members are no ports of it
    ({"system": "local", "join": 1, "seconds": 1, "omit": 0}, "request.members", "not a port of"),
])
def test_lagg_verify_with_desktops_that_join_is_declared_and_checked_inside_middlewared(truenas, options, field,
                                                                                         said):
    """tengig.lagg.verify on system local with join, called as the plugin declares it (midclt call -j):
    the options go through the plugin's models and tengig's own checks, and a refusal names the field.
    The accepted call's join token: tests/realmw/test_join_through_middlewared.py (on the lab's nas)."""
    done = truenas.midclt("call", "-j", "tengig.lagg.verify", json.dumps(LAGG_REQUEST), json.dumps(options),
                          timeout=120)
    assert done.returncode != 0 and field in done.stderr and said in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stdout


def test_a_job_through_midclt_ends_as_core_get_jobs_keeps_it(truenas):
    """A tengig job run with midclt -j: it ends FAILED with tengig's reason (system local inside
    middlewared), and middlewared's own job list keeps it so, with the field the reason names."""
    done = truenas.midclt("call", "-j", "tengig.mesh.apply", json.dumps(MESH_REQUEST),
                          json.dumps({"system": "local", "hosts": ["nas"]}), timeout=120)
    assert done.returncode != 0 and "system: truenas" in done.stderr, done.stderr[-2000:]
    listed = truenas.midclt("call", "core.get_jobs", json.dumps([["method", "=", "tengig.mesh.apply"]]))
    assert listed.returncode == 0, listed.stderr
    jobs = json.loads(listed.stdout)
    assert jobs and jobs[-1]["state"] == "FAILED" and "system: truenas" in jobs[-1]["error"], jobs[-1:]
    assert jobs[-1]["exc_info"]["extra"][0][0] == "options.system", jobs[-1]["exc_info"]


def test_tengigs_own_client_logs_in_with_an_api_key_and_runs_a_query_and_a_job(truenas):
    """tengig's client over TCP: JSON-RPC 2.0 at /api/current, logged in as each version stores keys: on 26,
    whose own authenticator level offers SCRAM (its auth.mechanism_choices), SCRAM through auth.login_ex in
    26's own models, the key never sent; on 25.x API_KEY_PLAIN (this is loopback, which TrueNAS counts as
    secure). The key check answers from the launcher's stand-in (TrueNAS checks SCRAM in its PAM module, not
    here: scram_standin.py does what it does), so what this proves is the exchange in 26's forms."""
    from tengig.client import connect

    from .conftest import TEST_API_KEY, TEST_USER
    from .harness import NEXT_VERSION

    offered = json.loads(truenas.midclt("call", "auth.mechanism_choices").stdout)
    assert ("SCRAM" in offered) == (truenas.build.version == NEXT_VERSION), offered
    before = len(json.loads(truenas.midclt("call", "auth.standin_logins").stdout))
    with connect(f"ws://127.0.0.1:{truenas.port}", TEST_API_KEY, username=TEST_USER) as client:
        logins = json.loads(truenas.midclt("call", "auth.standin_logins").stdout)[before:]
        assert logins == (["SCRAM", "SCRAM"] if "SCRAM" in offered else ["API_KEY_PLAIN"]), logins
        assert client.wire.name == "jsonrpc"
        targets = {t["name"] for t in client.call("tengig.targets.query")}
        assert "hdd-15k-best" in targets
        events = []
        with pytest.raises(ClientError) as refused:
            client.call("tengig.mesh.apply", MESH_REQUEST, {"system": "local", "hosts": ["nas"]}, job=True,
                        callback=events.append)
        assert "system: truenas" in str(refused.value) and refused.value.field_errors[0][0] == "options.system"
        # the job's events that came before its answer reached the callback, and only its own: middlewared may
        # answer a job that fails at once before its first event is sent (the job list test above shows the job)
        assert {e["method"] for e in events} <= {"tengig.mesh.apply"}, events
    with pytest.raises(ClientError) as wrong:
        connect(f"ws://127.0.0.1:{truenas.port}", "1-" + "z9" * 32, username=TEST_USER)
    assert wrong.value.errno == errno.EACCES or "refused" in str(wrong.value).lower(), wrong.value
