"""The panel's Run view with a desktop that joins (system local), on the lab as three machines:
`tengig serve` runs on nas and serves the panel there (the production build of this checkout), the
panel is opened in chromium on desk (its only way to the NAS is the cable, as a person's browser on
their desktop), a network run is started from the form with one desktop to join, and the join command
the waiting screen shows is read off the page and run on desk (`tengig client join`). The desktop shows
up in the joined list, then the verdict comes. The lab is taken under /run/tengig/lab.lock
(tests/conftest.py); screenshots go to test-output/."""
from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tengig.client.client import Client
from tengig.server.apikeys import ApiKeyStore

from .browser import UI_DIST, require_browser, run_scenario

pytestmark = [pytest.mark.lab, pytest.mark.browser]
TENGIG = str(Path(sys.executable).parent / "tengig")
PORT = 8612


@contextlib.contextmanager
def nas_panel(lab):
    """`tengig serve` on nas, on its address towards desk, serving the panel; an API key for the browser;
    the test itself is root on the NAS's unix socket."""
    require_browser()
    address = lab.plan().address_of("nas", "desk")
    # A short directory: unix socket paths are limited to 107 bytes, and pytest's tmp paths are long.
    tmp = Path(tempfile.mkdtemp(prefix="tg-join-"))
    sock = tmp / "nas.sock"
    env = {**os.environ, "TENGIG_DB": str(tmp / "nas.sqlite3")}  # the API keys live next to it
    _, key = ApiKeyStore(tmp / "apikeys.sqlite3").create("panel-join-test")
    proc = lab.spawn("nas", [TENGIG, "serve", "--host", address, "--port", str(PORT), "--unix-socket", str(sock),
                             "--ui-dir", str(UI_DIST)],
                     log_name="test-panel-join-serve.log", netns_mode="nsenter", env=env)
    try:
        for _ in range(200):
            if sock.exists():
                break
            assert proc.poll() is None, (lab.paths.logs / "test-panel-join-serve.log").read_text()
            time.sleep(0.05)
        with Client(f"ws+unix://{sock}") as api:
            yield api, address, key, tmp
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        shutil.rmtree(tmp, ignore_errors=True)


def _in_thread(fn):
    """Run fn in a thread; the result (or what it raised) in the returned dict once the thread ends."""
    out: dict = {}

    def body():
        try:
            out["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 (pytest.fail is no Exception): re-raised in the test thread
            out["error"] = exc

    thread = threading.Thread(target=body)
    thread.start()
    return thread, out


def _waiting_token(api: Client) -> str | None:
    """The token the NAS's own waiting run announces (read over the NAS's API, not the page)."""
    for job in api.call("core.get_jobs", [["method", "=", "tengig.bench.run"], ["state", "=", "RUNNING"]]):
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session:
            return session["token"]
    return None


def test_desk_joins_a_run_started_in_the_panel_and_the_verdict_comes(shaped_lab):
    with nas_panel(shaped_lab) as (api, address, key, tmp):
        handoff = tmp / "join-command.json"
        params = {"kind": "net", "join": 1, "repeats": 1, "netSeconds": 1, "handoff": str(handoff)}
        scenario, seen = _in_thread(lambda: run_scenario(
            "run-join", f"http://{address}:{PORT}/", key, params, timeout=400, netns=shaped_lab.netns("desk")))

        deadline = time.monotonic() + 120
        while not handoff.exists():
            assert scenario.is_alive(), f"the page never showed a join command: {seen.get('error')}"
            assert time.monotonic() < deadline, "the page never showed a join command"
            time.sleep(0.2)
        command = json.loads(handoff.read_text())["command"]
        argv = shlex.split(command)
        # the URL the page is connected to, and the token of the run the NAS is waiting in
        assert argv[:4] == ["tengig", "client", "join", f"ws://{address}:{PORT}"], command
        assert argv[4] == "--token" and argv[5] == _waiting_token(api), command
        assert "--smb-auth-file" not in argv, "a network run asks no SMB credentials of the desktop"

        desk = shaped_lab.spawn("desk", [TENGIG, "client", "join", argv[3], "--token", argv[5], "--name", "desk"],
                                log_name="test-panel-join-desk.log")
        scenario.join(420)
        assert desk.wait(60) == 0, (shaped_lab.paths.logs / "test-panel-join-desk.log").read_text()
        if "error" in seen:
            raise seen["error"]
        report = seen["result"]
        facts = report["facts"]
        run_id = int(facts["url"].rsplit("/", 1)[1])
        run = api.call("tengig.results.get", run_id)

    assert facts["errors"] == [] and facts["consoleErrors"] == [], facts
    assert facts["clientsField"] == 0  # on the NAS itself, the clients are the desktops that join
    assert facts["countBefore"] == "0 of 1 joined"
    assert facts["copyStatus"] == "copied", facts["copyStatus"]
    assert facts["descriptionWaiting"].startswith("waiting for 1 of 1 client(s) to join"), facts["descriptionWaiting"]
    assert facts["stepsWaiting"] == ["step-net:desktop 1:pending", "step-verdict:pending"], facts["stepsWaiting"]
    desk_address = shaped_lab.plan().address_of("desk", "nas")
    assert facts["joinedClients"] == [f"desk (linux, {desk_address})"], facts["joinedClients"]
    assert facts["countAfter"] == "1 of 1 joined" and facts["commandAfterJoin"] == 0
    assert "step-net:desk:running" in facts["stepStates"] or "step-net:desk:done" in facts["stepStates"], facts
    assert facts["percents"] == sorted(facts["percents"]), facts["percents"]
    assert facts["summary"].strip(), facts
    assert run["status"] == "success" and run["inputs"]["join"] == 1
    [client] = run["results"]["clients"]
    assert client["joined"]["name"] == "desk" and client["network"], client
    assert [Path(s).name for s in report["screenshots"]] == [
        "run-join-waiting.png", "run-join-joined.png", "run-join-verdict.png"]
