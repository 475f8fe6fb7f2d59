"""A NAS restarted mid-run: `tengig serve` on nas and every program it started are killed (as a reboot or a
service restart does) while desk takes part; desk ends with a message naming the NAS it lost, and the
NAS's next run removes the scratch dataset the killed one left, and says so."""
from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from tengig.lab import Lab, build_spec
from tengig.lab.nas_tengig import join_url, nas_tengig, start_join
from tengig.units import MiB

from .joined_harness import PORT, family_of, start_run

pytestmark = pytest.mark.lab
REQUEST = {"system": "local", "kind": "all", "join": 1, "share": "share", "repeats": 1, "net_seconds": 2,
           "working_set": 128 * MiB}


@pytest.fixture(scope="module")
def lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g"]))
    yield lab
    lab.down()


def _scratch(lab) -> list[str]:
    listed = lab.runner.run(["zfs", "list", "-H", "-o", "name"], timeout=30).stdout.split()
    return [name for name in listed if "tengig-scratch" in name]


def test_a_nas_killed_mid_run_then_started_again(lab, tmp_path):
    db = tmp_path / "nas.sqlite3"
    url = join_url(lab, "desk", PORT)
    with nas_tengig(lab, db, socket=tmp_path / "nas.sock", port=PORT, log_name="test-restart-nas.log") as (api, nas):
        thread, outcome = start_run(api, REQUEST)
        desk = start_join(lab, "desk", url, outcome["token"], log_name="test-restart-desk.log")
        while not _scratch(lab) and thread.is_alive():  # the pool is being measured on its scratch dataset
            time.sleep(0.1)
        for pid in family_of(nas.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        nas.wait(30)
        thread.join(60)
        assert desk.wait(120) != 0
    left = _scratch(lab)
    assert left, "the killed run left no scratch dataset: the test did not kill it mid-run"
    said = (lab.paths.logs / "test-restart-desk.log").read_text()
    assert "lost the NAS" in said and url in said and "Traceback" not in said, said[-2000:]

    with nas_tengig(lab, db, socket=tmp_path / "nas.sock", port=PORT, log_name="test-restart-nas-2.log") as (api, _):
        result = api.call("tengig.bench.run", {"system": "local", "kind": "pool", "repeats": 1,
                                               "working_set": 128 * MiB}, job=True, timeout=900)
        runs = {r["id"]: r for r in api.call("tengig.results.query")}
    assert result["report"]["swept"] == left and result["report"]["left_behind"] == []
    assert _scratch(lab) == []
    killed = runs[min(runs)]
    assert killed["status"] == "aborted", killed  # marked by the restarted NAS: its process was killed
