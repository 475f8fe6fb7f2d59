"""`tengig serve` with TrueNAS's official client, unchanged (the 25.10 client and the newest one, each in
its own virtualenv and process; official_client.py): keys from `tengig apikey create` in TrueNAS's
format, both endpoints (/api/current and the legacy /websocket), errors and ValidationErrors on both,
PASSWORD_PLAIN answered AUTH_ERR, core.get_methods in middlewared's shape, and `midclt` call, call -j
with progress, and subscribe."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .harness import running_server
from .official_client import CLIENTS, official_client

REPO = Path(__file__).resolve().parents[2]
TRUENAS_KEY = re.compile(r"[0-9]+-[A-Za-z0-9]{64}")
MIDDLEWARED_FIELDS = {"description", "cli_description", "examples", "item_method", "no_auth_required", "filterable",
                      "filterable_schema", "pass_application", "require_websocket", "job", "downloadable",
                      "uploadable", "check_pipes", "roles", "accepts", "returns"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("official")) as srv:
        yield srv


@pytest.fixture(scope="module", params=CLIENTS)
def client(request):
    return official_client(request.param)


def _env(tmp: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO / "middleware"), "TENGIG_DB": str(tmp / "results.sqlite3")}


def test_keys_from_tengig_apikey_create_have_truenas_format_and_log_in(tmp_path):
    """30 keys made by the CLI's `apikey create` (in-process: the same command, without 30 interpreter starts):
    every one is <id>-<64 letters and digits>, and the newest client (which refuses anything else before
    sending) logs in with the first five."""
    from click.testing import CliRunner

    from tengig.cli.main import cli

    env = _env(tmp_path)
    keys = []
    for i in range(30):
        done = CliRunner().invoke(cli, ["apikey", "create", f"k{i}"], env={"TENGIG_DB": env["TENGIG_DB"]})
        assert done.exit_code == 0, done.output
        keys.append(done.stdout.strip())
    assert all(TRUENAS_KEY.fullmatch(key) for key in keys), keys
    master = official_client("master")
    proc = subprocess.Popen([sys.executable, "-m", "tengig.cli.main", "serve", "--port", "0", "--unix-socket", ""],
                            env=env, stderr=subprocess.PIPE, text=True)
    try:
        uri = re.search(r"(ws://\S+/api/current)", proc.stderr.readline()).group(1)
        logged_in = [master.script("scenario", json.dumps({"uri": uri, "key": key, "username": "root"}))["login"]
                     for key in keys[:5]]
        refused = master.script("scenario", json.dumps({"uri": uri, "key": keys[0] + "\n" + "x",
                                                        "username": "root"}))["login"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert logged_in == ["ok"] * 5
    assert refused.startswith("refused")


def test_current_endpoint(server, client):
    out = client.script("scenario", json.dumps({
        "uri": server.url, "key": server.api_key, "username": "root",
        "methods": ["tengig.results.get", "core.ping", "demo.jobs.count"],
        "job": ["demo.jobs.count", {"steps": 4}]}))
    assert out["ping"] == "pong"
    assert out["wrong_password"] == {"response_type": "AUTH_ERR"}
    assert out["login"] == "ok"
    assert out["validation"]["class"] == "ValidationErrors"
    assert out["validation"]["errors"][0][0].startswith("options.kind")
    assert out["call_error"]["class"] == "ClientException" and out["call_error"]["errno"] == 2
    assert out["job"] == 4 and out["job_progress"] and max(out["job_progress"]) == 100
    assert out["job_events"] >= 2
    for name, info in out["methods"].items():
        assert set(info) == MIDDLEWARED_FIELDS, name
        assert isinstance(info["accepts"], list) and isinstance(info["returns"], list)
    assert [a["_name_"] for a in out["methods"]["tengig.results.get"]["accepts"]] == ["id"]
    assert out["methods"]["core.ping"]["accepts"] == [] and out["methods"]["demo.jobs.count"]["job"] is True


def test_legacy_endpoint_raises_validation_errors(server, client):
    out = client.script("scenario", json.dumps({"uri": server.server.legacy_url, "key": server.api_key,
                                                "username": "root"}))
    assert out["client_class"] == "LegacyClient"
    assert out["ping"] == "pong" and out["login"] == "ok"
    assert out["validation"]["class"] == "ValidationErrors", out["validation"]
    assert out["validation"]["errors"][0][0].startswith("options.kind")
    assert out["call_error"]["class"] == "ClientException" and out["call_error"]["errno"] == 2


def test_a_wrong_key_is_refused(server, client):
    wrong = server.api_key[:-1] + ("A" if server.api_key[-1] != "A" else "B")
    out = client.script("scenario", json.dumps({"uri": server.url, "key": wrong, "username": "root"}))
    assert out["login"].startswith("refused")


def test_midclt_call_job_and_subscribe(server, client):
    login = ["-u", server.url, "-K", server.api_key] + (["-U", "root", "--plain"] if client.name == "master" else [])
    done = client.midclt(*login, "call", "core.ping")
    assert (done.returncode, done.stdout.strip()) == (0, "pong"), done.stderr + done.stdout
    done = client.midclt(*login, "call", "-j", "demo.jobs.count", json.dumps({"steps": 5, "seconds": 0.05}))
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip().splitlines()[-1] == "5"
    assert "%" in done.stdout + done.stderr  # the progress bar
    # subscribe: root on the unix socket (no key needed, as on a TrueNAS), one event, then exit
    sub = subprocess.Popen([str(client.midclt_path), "-u", f"ws+unix://{server.unix_socket}", "subscribe", "-n", "1",
                            "core.get_jobs"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(50):
            kicked = client.midclt(*login, "call", "demo.jobs.count", json.dumps({"steps": 1}))
            assert kicked.returncode == 0, kicked.stderr
            try:
                out, err = sub.communicate(timeout=2)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            raise AssertionError("midclt subscribe saw no event")
    finally:
        if sub.poll() is None:
            sub.kill()
            sub.wait()
    assert sub.returncode == 0, err
    # midclt prints each event with print() from the client's callback threads: two events at once can
    # come out as "{...}{...}" on one line (seen with a core kept busy), so read the first object only.
    event, _ = json.JSONDecoder().raw_decode(out.strip())
    assert event["collection"] == "core.get_jobs" and event["fields"]["method"] == "demo.jobs.count"
