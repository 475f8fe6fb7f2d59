"""Record a small results database from real lab runs (tests/fixtures/results/lab-runs.sqlite3), for the
`tengig results` tests: list, show, compare and export read real runs, not hand-made ones.

    make results-fixture   # = PYTHONPATH=middleware .venv/bin/python scripts/record_results_fixture.py, as root

Needs root and the lab's tools; takes the lab lock (/run/tengig/lab.lock) and refuses if a lab is up. Two
labs, one run each, both `tengig bench all --system lab --clients desk --clients lab` (quick preset, two
repeats): two desktops, so each run has per-client verdicts and the aggregate verdict of both at once.

  run 1  desk-nas=1g, lab-nas=100m   (the "before": lab's cable at 100 Mb/s)
  run 2  desk-nas=1g, lab-nas=1g     (the "after": the NAS's two ports together carry 2 x 117.7 MB/s)

Every command runs through tengig's own CLI, as a person would run it; the lab is taken down after each run,
also when a step fails. What `tengig bench` printed for run 2 is kept as tests/fixtures/results/run-2-as-printed.txt.
(The fixture in the repository was recorded with this script's first version, which printed everything to
one log; run-2-as-printed.txt was cut from that log at the same place.)"""
from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "results" / "lab-runs.sqlite3"
PRINTED = OUT.with_name("run-2-as-printed.txt")
TENGIG = [str(ROOT / ".venv" / "bin" / "tengig")]
LAB_LOCK = Path("/run/tengig/lab.lock")
RUNS = (
    ["desk-nas=1g", "lab-nas=100m", "desk-lab=10g"],
    ["desk-nas=1g", "lab-nas=1g", "desk-lab=10g"],
)
BENCH = ["bench", "all", "--system", "lab", "--clients", "desk", "--clients", "lab", "--preset", "quick",
         "--repeats", "2"]


def tengig(*args: str) -> str:
    """Run `tengig ARGS` on the fixture's database; its stdout (also printed), progress on stderr as it comes."""
    print("+ tengig", " ".join(args), flush=True)
    done = subprocess.run([*TENGIG, *args], check=True, env={**os.environ, "TENGIG_DB": str(OUT)},
                          stdout=subprocess.PIPE, text=True)
    print(done.stdout, end="", flush=True)
    return done.stdout


def main() -> int:
    if os.geteuid() != 0:
        print("run as root (the lab needs network namespaces)", file=sys.stderr)
        return 2
    OUT.parent.mkdir(parents=True, exist_ok=True)
    for stale in (OUT, OUT.with_name(OUT.name + "-wal"), OUT.with_name(OUT.name + "-shm")):
        stale.unlink(missing_ok=True)
    LAB_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LAB_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for links in RUNS:
            tengig("lab", "up", *(f"--link={link}" for link in links), "--pool-size", "4G")
            try:
                printed = tengig(*BENCH)
            finally:
                tengig("lab", "down")
    # the last run's report as the command printed it, before its "stored as run N in DB" line
    PRINTED.write_text(printed[: printed.rindex("\nstored as run ")].rstrip("\n") + "\n")
    # One file, no WAL beside it: the fixture is read-only in the tests (they copy it first).
    with sqlite3.connect(OUT) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for side in (OUT.with_name(OUT.name + "-wal"), OUT.with_name(OUT.name + "-shm")):
        side.unlink(missing_ok=True)
    print(f"recorded {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
