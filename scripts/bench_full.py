"""The whole `full` preset with one desktop (not a test): system 'lab' as `tengig bench --system lab --preset
full` runs it (tengig on the lab's nas, desk joining over its cable at 1g), kind all: the pool's preset tests and
its thread sweep, iperf3, the SMB copies and the small files, from the start to the verdict. Prints the time,
each phase's time and share (from the run's own progress lines, as the panel shows them) and what each phase
measured, and exits 1 above the goal (5 minutes).

Usage: .venv/bin/python scripts/bench_full.py [--link desk-nas=1g] [--goal SECONDS]   (takes the lab down at
the end; take the lab's lock around it as `make bench` does)"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tengig.bench.run.record import run_and_record  # noqa: E402
from tengig.bench.run.suite import BenchRunRequest  # noqa: E402
from tengig.lab import Lab, build_spec  # noqa: E402
from tengig.lab.nas_run import LabNas  # noqa: E402
from tengig.results.store import ResultStore  # noqa: E402

GOAL_SECONDS = 300
# A progress line's phase, by how it starts (bench/phases, bench/join): the first that matches.
PHASES = (("pool scaling", "pool thread sweep"), ("pool", "pool preset tests"),
          ("writing the random tests'", "pool preset tests"), ("iperf3", "network (iperf3)"),
          ("small files", "small files"), ("smb", "SMB copies"), ("verdict", "verdict"))


def phase_of(description: str) -> str:
    return next((phase for prefix, phase in PHASES if description.startswith(prefix)), "other")


def phase_seconds(steps: list[tuple[float, str]], started: float, ended: float) -> dict[str, float]:
    """Seconds per phase: each progress line lasts until the next one (the last until ``ended``); the time from
    the join to the first line counts as "other"."""
    out: dict[str, float] = {}
    marks = [(started, "other"), *((t, phase_of(d)) for t, d in steps if t >= started), (ended, "")]
    for (t, phase), (t_next, _) in zip(marks, marks[1:]):
        out[phase] = out.get(phase, 0.0) + max(0.0, t_next - t)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--link", default="desk-nas=1g")
    ap.add_argument("--goal", type=float, default=GOAL_SECONDS, help="Seconds the run may take (exit 1 above).")
    args = ap.parse_args()
    lab = Lab()
    lab.down()
    lab.up(build_spec([args.link]))
    steps: list[tuple[float, str]] = []

    def progress(percent: float, description: str) -> None:
        if description and (not steps or steps[-1][1] != description):
            steps.append((time.monotonic(), description))

    try:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            _, report = run_and_record(LabNas(lab), BenchRunRequest(kind="all", preset="full"),
                                       ResultStore(Path(tmp) / "runs.sqlite3"), progress=progress)
            ended = time.monotonic()
    finally:
        lab.down()
    joined = next((t for t, d in steps if not d.startswith("waiting for")), started)
    took = ended - started
    spent = phase_seconds(steps, joined, ended)
    print(f"{args.link}: the full preset with desk joined (tengig bench --system lab --preset full): {took:.1f} s "
          f"from the start to the verdict, {joined - started:.1f} s of it until desk had joined (goal <= "
          f"{args.goal:.0f} s)")
    print(f"  {report.verdict.summary if report.verdict else 'no verdict'}")
    for phase, seconds in sorted(spent.items(), key=lambda i: -i[1]):
        print(f"  {phase}: {seconds:.1f} s ({100 * seconds / took:.0f}%)")
    client = report.clients[0]
    if report.pool:
        print("  pool: " + ", ".join(f"{p.test} {p.direction} {len(p.bytes_per_s.values)} run(s)"
                                     for p in report.pool.phases)
              + f" ({report.pool.working_set_bytes >> 20} MiB files); thread steps "
              + ", ".join(f"{s.direction} {len(s.steps)}" for s in (report.pool.scaling.sweeps if report.pool.scaling
                                                                   else [])))
    print(f"  iperf3: {len(client.network)} test(s)" + "".join(f"; {why}" for why in client.network_skipped))
    if client.smb:
        print(f"  SMB: {len(client.smb.write.bytes_per_s.values)} write(s), {len(client.smb.read.bytes_per_s.values)} "
              f"read(s) of {client.smb.file_size >> 20} MiB")
    if client.small_files:
        print("  small files: " + ", ".join(f"{s.count} x {s.size} B" for s in client.small_files.sizes))
    return 0 if took <= args.goal else 1


if __name__ == "__main__":
    sys.exit(main())
