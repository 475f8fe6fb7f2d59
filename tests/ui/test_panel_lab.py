"""The panel against the lab, through a real `tengig serve` (TengigServer) and Debian's chromium:
log in, run a quick benchmark and watch its progress move, read the verdict with real lab numbers;
then stop the share (smbd killed in the lab) and see a run fail with its error and no numbers.
The lab is taken under /run/tengig/lab.lock (tests/conftest.py), up and down within this module."""
from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tengig.lab import Lab, build_spec

from .browser import run_scenario
from .conftest import page_url

pytestmark = [pytest.mark.lab, pytest.mark.browser]


@pytest.fixture(scope="module")
def lab():
    if os.geteuid() != 0:
        pytest.fail("lab tests need root (run `make test` as root)")
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g"]))
    yield lab
    lab.down()


def test_quick_benchmark_progress_then_verdict(lab, panel):
    # One run per test and 2 s of iperf3 keep this near half a minute; the numbers are still real.
    report = run_scenario("run-verdict", page_url(panel), panel.api_key, {"repeats": 1, "netSeconds": 1})
    facts = report["facts"]
    assert facts["errors"] == []
    moving = [p for p in facts["percents"] if 0 < p < 100]
    assert len(set(moving)) >= 3 and moving == sorted(moving), facts["percents"]
    assert any(s.endswith(":running") for s in facts["stepStates"]), facts["stepStates"]
    assert any(d.startswith("pool") for d in facts["descriptions"]) and any(
        d.startswith("smb") for d in facts["descriptions"]), facts["descriptions"]
    # desk-nas is a 1 Gb/s link: SMB tops out near 117 MB/s, so it loses to the 15k HDD's 223.4 MB/s read.
    assert "loses by" in facts["readRow"] and "Link" in facts["readRow"], facts["readRow"]
    assert "223.4 MB/s" in facts["readRow"]
    assert [bar.split("\n")[0] for bar in facts["readBars"]] == ["Pool", "Link", "Network", "SMB"]
    assert facts["linkProvenance"] == "estimated"
    assert facts["targetLine"] == "target 223.4 MB/s"
    assert any("1 Gb/s link" in a for a in facts["advice"]), facts["advice"]
    assert report["screenshots"][-1].endswith("verdict.png")


def _kill_smbd(lab: Lab) -> int:
    """Stop the share the hard way: every smbd in the nas namespace, by pid."""
    pids = subprocess.run(["ip", "netns", "pids", "tg-nas"], capture_output=True, text=True, timeout=10,
                          check=True).stdout.split()
    killed = 0
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "smbd":
                os.kill(int(pid), signal.SIGKILL)
                killed += 1
        except (FileNotFoundError, ProcessLookupError):
            pass
    return killed


def test_a_run_against_a_stopped_share_shows_the_error_not_numbers(lab, panel):
    assert _kill_smbd(lab) >= 1
    report = run_scenario("failed-run", page_url(panel), panel.api_key, {"kind": "smb"})
    facts = report["facts"]
    assert facts["state"] == "FAILED"
    assert facts["failure"].startswith("No result: the run failed"), facts["failure"]
    # The error once, in words: what failed and why.
    [error] = [e.removesuffix("\ndismiss") for e in facts["errors"]]
    # tengig on nas finds its Samba stopped before any desktop copies (the lab's run is the NAS's own)
    assert error.startswith("tengig.bench.run failed") and "no smbd runs on nas" in error, error
    assert "tengig.bench.run: " not in error and "[EIO]" in error, error  # the NAS's reason, tagged once
    assert facts["progressText"].count("NT_STATUS") == 0
    assert "MB/s" not in facts["progressText"] and facts["samples"] == "0 samples"
    assert any(s.endswith(":failed") for s in facts["stepStates"]), facts["stepStates"]
    # History's one line: no SMB figures, the reason as the result, no margin, no bottleneck
    failed_rows = [r for r in facts["historyRows"] if "\tfailed: " in r]
    assert failed_rows and "\t—\tfailed: " in failed_rows[0] and failed_rows[0].endswith("\t—\t—"), facts["historyRows"]
