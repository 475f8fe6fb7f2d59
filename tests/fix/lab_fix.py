"""What the fix lab tests share: tengig.fix.apply as a job that a desktop joins, and a run's SMB copies."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tengig.lab import Lab, build_spec
from tengig.lab.instance import suffix
from tengig.lab.paths import LabPaths

from ..bench.joined_harness import join

# The fix lab tests' NAS: desk on a 10 Gb/s cable, a run of kind all that desk joins, smbd held to a quarter of a
# core where encryption's cost per byte should show plainly. iperf3 measures 1 s per test (after 1 s left out):
# at 10 Gb/s its figure stays far above what smbd or the pool give, and each second of it takes both cores.
LINKS_10G = ["desk-nas=10g", "lab-nas=100m", "desk-lab=1g"]
RUN = {"system": "local", "kind": "all", "join": 1, "share": "share", "repeats": 3, "working_set": 128 * 2**20,
       "net_seconds": 1}
SMBD_QUOTA_US = 25000  # of the 100000 us period: a quarter of a core
# smbd held to a tenth of a core, where the test needs smbd far below the pool and at its limit even on a busy
# machine: with a quarter, a busy machine lowered the pool's figure (the panel's fix test lost its advice) or gave
# smbd less than all of it (the multichannel fix test, two labs at once), and the verdict rightly named neither.
SMBD_TENTH_QUOTA_US = 10000
# The dataset fix's lab: its pool throttled (blkio) under zfs-fuse's own pace (550-610 MB/s reads here), so at
# 128K records the pool, not this machine's two cores, bounds SMB, and the prediction's ceiling is what SMB meets
# (unthrottled SMB stops at 56-78% of the pool, and a share of one run's pool misses the next).
SLOW_POOL_MBPS = 400
# ... and its image in RAM: on this machine's disk, the disk's own pace moves the pool's (docs/lab.md §9)
MEMORY_DATA = Path(f"/dev/shm/tengig-fix-lab{suffix()}")  # a second lab's (tests/second_lab.sh) beside it


def _lab_for_the_module(lab: Lab, **spec):
    """``lab`` up with desk on a 10 Gb/s cable (and ``spec``), for one module; down afterwards."""
    lab.down()
    lab.up(build_spec(LINKS_10G, **spec))
    yield lab
    lab.down()


@pytest.fixture(scope="module")
def lab_10g():
    """The lab with desk on a 10 Gb/s cable and its pool's image in RAM (another lab's disk traffic beside it, or
    the machine's, does not move the pool's figure under SMB's), for one module; down afterwards."""
    yield from _lab_for_the_module(Lab(LabPaths(data=MEMORY_DATA)))


@pytest.fixture(scope="module")
def lab_10g_steady_pool():
    """As lab_10g, its pool throttled to SLOW_POOL_MBPS and its image in RAM, for one module; down afterwards."""
    yield from _lab_for_the_module(Lab(LabPaths(data=MEMORY_DATA)), slow_pool_mbps=SLOW_POOL_MBPS)


def apply_joined(lab, api, urls, request: dict) -> dict:
    """tengig.fix.apply as a job; desk joins the re-measure with the token its progress shows."""
    outcome, token = {}, threading.Event()

    def progress(job):
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session and "token" not in outcome:
            outcome["token"] = session["token"]
            token.set()

    def body():
        try:
            outcome["result"] = api.call("tengig.fix.apply", request, job=True, callback=progress, timeout=900)
        except Exception as exc:  # the test reads it below
            outcome["error"] = exc
        token.set()

    thread = threading.Thread(target=body)
    thread.start()
    assert token.wait(120), "the fix never showed its join token"
    assert "error" not in outcome, outcome.get("error")
    desk = join(lab, "desk", urls["desk"], outcome["token"])
    thread.join(900)
    desk.wait(60)
    assert "error" not in outcome, outcome.get("error")
    return outcome["result"]


def copies(run: dict, direction: str) -> list[float]:
    desk = next(c for c in run["results"]["clients"] if c["client"] == "desk")
    return desk["smb"][direction]["bytes_per_s"]["values"]
