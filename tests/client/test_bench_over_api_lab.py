"""The whole path a script or midclt user takes: `tengig serve` (a real process) on the lab, an API key
from `tengig apikey create`, and `tengig call -j tengig.bench.run '{...}'`: a progress bar on stderr, the
verdict in the result, the run in the results database; a second benchmark on the pool gets EBUSY."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tengig.client import Client, ClientError

pytestmark = pytest.mark.lab
TENGIG = str(Path(sys.executable).with_name("tengig"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(shaped_lab, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    env = {**os.environ, "TENGIG_DB": str(tmp / "results.sqlite3")}
    key = subprocess.run([TENGIG, "apikey", "create", "bench-test"], env=env, capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip().splitlines()[-1]
    port = _free_port()
    proc = subprocess.Popen([TENGIG, "serve", "--port", str(port), "--unix-socket", ""], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"ws://127.0.0.1:{port}/api/current"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    yield url, key, env
    proc.terminate()
    proc.wait(timeout=30)


def test_tengig_call_job_shows_progress_and_the_verdict(served):
    url, key, env = served
    done = subprocess.run(
        [TENGIG, "call", "-u", url, "-K", key, "-j", "tengig.bench.run",
         json.dumps({"system": "lab", "kind": "smb", "clients": ["desk"], "repeats": 1})],
        env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "tengig.bench.run [" in done.stderr and "100.0%" in done.stderr and "smb read" in done.stderr
    result = json.loads(done.stdout)
    read = next(d for d in result["verdict"]["directions"] if d["direction"] == "read")
    assert read["bottleneck"] == "link" and read["beats_target"] is False
    assert "loses to 223.4 MB/s" in result["summary"]
    with Client(url, api_key=key) as c:
        run = c.call("tengig.results.get", result["run_id"])
    assert run["status"] == "success" and run["verdict"]["summary"] == result["summary"]


def test_a_second_benchmark_on_the_same_pool_is_busy(served):
    url, key, _ = served
    with Client(url, api_key=key) as first, Client(url, api_key=key) as second:
        first.call("core.set_options", {"legacy_jobs": True})
        job_id = first.call("tengig.bench.run", {"system": "lab", "kind": "net", "net_seconds": 5})
        try:
            with pytest.raises(ClientError) as err:
                second.call("tengig.bench.smb", {"system": "lab"}, job=True)
            assert err.value.errno == 16  # EBUSY
        finally:
            first.call("core.job_abort", job_id)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            [job] = first.call("core.get_jobs", [["id", "=", job_id]])
            if job["state"] in ("ABORTED", "SUCCESS", "FAILED"):
                break
            time.sleep(0.2)
        assert job["state"] == "ABORTED"
