"""The NAS's own benchmark with a desktop that joins over the network (issue 17), on the lab as three
machines: `tengig serve` runs on nas (system local: its own pool, its own smbd), desk runs
`tengig client join` and reaches the NAS only through its cable. The test starts each program on its
host as a person would at each machine, and talks to the NAS's API over the NAS's unix socket."""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from tengig.client.client import Client
from tengig.client.errors import ClientError
from tengig.lab import samba
from tengig.units import MiB

pytestmark = pytest.mark.lab
TENGIG = str(Path(sys.executable).parent / "tengig")
PORT = 8611


@contextlib.contextmanager
def nas_api(lab, tmp_path: Path):
    """`tengig serve` on nas, on its address towards desk; the test is root on its unix socket."""
    address = lab.plan().address_of("nas", "desk")
    sock = tmp_path / "nas.sock"
    env = {**os.environ, "TENGIG_DB": str(tmp_path / "nas.sqlite3")}
    proc = lab.spawn("nas", [TENGIG, "serve", "--host", address, "--port", str(PORT), "--unix-socket", str(sock)],
                     log_name="test-nas-serve.log", netns_mode="nsenter", env=env)
    try:
        for _ in range(200):
            if sock.exists():
                break
            assert proc.poll() is None, (lab.paths.logs / "test-nas-serve.log").read_text()
            time.sleep(0.05)
        with Client(f"ws+unix://{sock}") as api:
            yield api, f"ws://{address}:{PORT}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def join(lab, host: str, url: str, token: str, *, auth: bool = True):
    argv = [TENGIG, "client", "join", url, "--token", token, "--name", host]
    if auth:
        argv += ["--smb-auth-file", str(lab.paths.samba / "client.auth"),
                 "--smb-conf", str(samba.client_dir(lab.paths, host) / "smb.conf")]
    return lab.spawn(host, argv, log_name=f"test-join-{host}.log")


def start_run(api: Client, request: dict):
    """The run as a job in a thread; returns (thread, outcome dict, the token once shown)."""
    outcome: dict = {}
    token = threading.Event()

    def progress(job):
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session and "token" not in outcome:
            outcome["token"] = session["token"]
            token.set()

    def body():
        try:
            outcome["result"] = api.call("tengig.bench.run", request, job=True, callback=progress, timeout=600)
        except ClientError as exc:
            outcome["error"] = exc
        token.set()

    thread = threading.Thread(target=body)
    thread.start()
    assert token.wait(60), "the run never showed its join token"
    return thread, outcome


def test_desk_joins_the_nas_run_and_the_1g_link_is_the_bottleneck(shaped_lab, tmp_path):
    with nas_api(shaped_lab, tmp_path) as (api, url):
        thread, outcome = start_run(api, {"system": "local", "kind": "all", "join": 1, "share": "share",
                                          "repeats": 2, "net_seconds": 2})
        assert "error" not in outcome, outcome.get("error")
        desk = join(shaped_lab, "desk", url, outcome["token"])
        thread.join(600)
        assert desk.wait(30) == 0, (shaped_lab.paths.logs / "test-join-desk.log").read_text()
        assert "error" not in outcome, outcome["error"]
        result = outcome["result"]
        run = api.call("tengig.results.get", result["run_id"])

    report = result["report"]
    assert report["system"] == "local"
    client = report["clients"][0]
    assert client["nas_port"]["shaper_bps"] == pytest.approx(984.4e6, rel=1e-3)  # tc on the NAS's port, not the plan
    assert client["link"]["line_rate_bps"] == 1_000_000_000
    assert client["joined"]["os"] == "linux" and client["joined"]["mtu"] == 1500
    read = next(d for d in result["verdict"]["directions"] if d["direction"] == "read")
    assert read["bottleneck"] == "link" and read["beats_target"] is False
    smb_read = client["smb"]["read"]["bytes_per_s"]["median"]
    assert smb_read / MiB == pytest.approx(110, rel=0.06)  # ~110 MiB/s: what 1 Gb/s carries
    assert all(w >= client["smb"]["file_size"] for w in client["smb"]["read"]["wire_bytes"])  # seen on nas's port
    assert {n["streams"] for n in client["network"]} == {1, 4}
    # every program the NAS ran, ran on the NAS; the client's tools are stored as the client's
    tools = [r["tool"] for r in run["raw"]]
    assert any(t == "iperf3 on desk" for t in tools) and any(t == "smb copy on desk" for t in tools)
    assert not any("netns" in " ".join(r["argv"]) or "nsenter" in " ".join(r["argv"]) for r in run["raw"])
    assert not list(Path("/run/tengig/lab").glob("**/tengig-bench-*"))  # the scratch directory is gone


def _misbehave(lab, url: str, token: str, mode: str):
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{repo}:{repo / 'middleware'}"}
    argv = [sys.executable, "-m", "tests.bench.misbehaving_client", url, token, mode,
            str(lab.paths.samba / "client.auth"), str(samba.client_dir(lab.paths, "desk") / "smb.conf")]
    return lab.spawn("desk", argv, log_name=f"test-misbehave-{mode}.log", env=env)


@pytest.mark.parametrize("mode,kind,reason", [
    ("lie", "net", r"desk reports .* received in iperf3 .* but only .* crossed the NAS's port"),
    ("garbage", "net", r"desk: iperf3 printed no JSON"),
    ("vanish", "smb", r"desk left the run \(its connection closed\)"),
])
def test_a_misbehaving_desktop_fails_the_run_with_the_reason(shaped_lab, tmp_path, mode, kind, reason):
    import re

    with nas_api(shaped_lab, tmp_path) as (api, url):
        thread, outcome = start_run(api, {"system": "local", "kind": kind, "join": 1, "share": "share",
                                          "repeats": 1, "net_seconds": 1})
        client = _misbehave(shaped_lab, url, outcome["token"], mode)
        thread.join(300)
        client.wait(30)
        assert "error" in outcome, f"the run succeeded with a desktop that did {mode}"
        assert re.search(reason, str(outcome["error"])), outcome["error"]
        failed = api.call("tengig.results.query", {"status": "failed"})
        assert failed and re.search(reason, failed[0]["error"])
        # a reused token: the run has ended, and a desktop that tries again is told so
        again = join(shaped_lab, "desk", url, outcome["token"])
        assert again.wait(60) != 0
        log = (shaped_lab.paths.logs / "test-join-desk.log").read_text()
        assert "has ended" in log, log
    share = [line.split("=", 1)[1].strip() for line in (shaped_lab.paths.samba / "smb.conf").read_text().splitlines()
             if line.strip().startswith("path")]
    assert share and not any(list(Path(p).glob("tengig-bench-*")) for p in share), "the scratch directory was left"
