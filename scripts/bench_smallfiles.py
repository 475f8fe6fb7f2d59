"""The small-file phase against the same smbclient commands run raw on the same path (not a test): the lab at
desk-nas=1g, desk's 2,000 files of 4 KiB (the full preset's first size), in alternating order each round:
- tengig: the `smallfiles` phase itself, as a run that desk joins (tengig on nas as system local, `tengig client
  join` on desk): the files/s the run reports (desk's smbclient lines, read by the NAS between the two pwd
  marks; the NAS's session probe, its counters and its file check around each batch, as in every run);
- raw: the same smbclient -c scripts (write, stat, read, delete; desk/smallfiles.py) without the marks, without
  stdbuf and without tengig, in a scratch dataset of the same share made by the phase's own code (with
  primarycache=metadata: the reads come from the pool, not the ARC, as the phase's do), each batch timed from
  outside, less the same smbclient's connection alone (`cd DIR`, the median of 3, timed the same way).
Both wait for the NAS's pool to write the files out after the write batch (the phase does: settle_writes), so
the stat and read batches read files at rest, not beside the write-back of the write.
  docs/lab.md §12 has what it measured.
Prints each round's files/s and the median ratio tengig/raw per operation; exits 1 when the write's or the
read's median ratio is outside 0.95-1.05 (the goal: within 5%).

Usage: .venv/bin/python scripts/bench_smallfiles.py [--rounds N] [--count N] [--size BYTES]   (takes the lab
down at the end)"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.bench.joined_harness import join, nas_api, start_run  # noqa: E402  the lab's own way to start both ends

from tengig.backends.linux.zfs import ZfsCli  # noqa: E402
from tengig.bench.context import BenchContext  # noqa: E402
from tengig.join_protocol.lines import SMALL_BATCH_OPS as SMALL_OPS  # noqa: E402
from tengig.bench.phases.nas_share import NasShare  # noqa: E402
from tengig.bench.phases.share_scratch import close_share_scratch, open_share_scratch  # noqa: E402
from tengig.desk.instructions import small_dir  # noqa: E402
from tengig.desk.smallfiles import SmallSet, smbclient_commands  # noqa: E402
from tengig.lab import Lab, build_spec, samba  # noqa: E402
from tengig.lab.hosts import LabHosts  # noqa: E402
from tengig.lab.plan import SHARE_NAME  # noqa: E402
GOAL = (0.95, 1.05)
COMPARED = ("write", "read")


def _wall(lab: Lab, commands: str) -> float:
    started = time.monotonic()
    done = lab.run("desk", samba.smbclient_argv(lab.paths, "desk", lab.require_up().spec.nas, commands),
                   timeout=600, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"smbclient -c {commands!r}: {done.stdout + done.stderr}")
    return seconds


def raw_round(lab: Lab, workdir: Path, size: int, count: int) -> dict[str, float]:
    """files/s of each raw batch, in a scratch dataset of the share made by the phase's own code
    (bench/phases/share_scratch.py: primarycache=metadata, so reads come from the pool as the phase's do; the
    same directory under it). The files on desk are made new each round, as desk makes them for each run
    (SmallSet: fresh random files, an empty directory the reads land in), and removed after: reads that
    overwrite the files an earlier round left on desk's disk ran up to 0.3 s faster per 2,000 files than
    reads that create them, as the phase's do."""
    small = SmallSet(workdir, size, count)
    try:
        return _raw_batches(lab, small)
    finally:
        small.remove()


def _raw_batches(lab: Lab, small: SmallSet) -> dict[str, float]:
    ctx = BenchContext(LabHosts(lab))
    zfs = ZfsCli(ctx, "nas")
    share = NasShare(name=SHARE_NAME, path=lab.require_up().share_path, conf=None)
    scratch = open_share_scratch(ctx, zfs, "nas", share, f"raw-small-{int(time.time())}")
    try:
        directory = small_dir(scratch.remote_dir("desk"), small.size)
        _wall(lab, smbclient_commands("prepare", directory, small))
        rates = {}
        for op in SMALL_OPS:
            script = smbclient_commands(op, directory, small).replace("pwd; ", "").replace("; pwd", "")
            connect = statistics.median(_wall(lab, f"cd {directory.rsplit(chr(92), 1)[0]}") for _ in range(3))
            rates[op] = small.count / (_wall(lab, script) - connect)
            if op == "write":  # as the phase does: the reads read files at rest
                zfs.settle_writes(scratch.dataset.split("/")[0])
        return rates
    finally:
        close_share_scratch(ctx, zfs, scratch)


def tengig_round(lab: Lab, api, url: str, size: int, count: int) -> dict[str, float]:
    """files/s of each batch, as the smallfiles phase reports them."""
    thread, outcome = start_run(api, {"system": "local", "kind": "smallfiles", "join": 1, "share": "share",
                                      "small_files": [{"size": size, "count": count}]})
    desk = join(lab, "desk", url, outcome["token"])
    thread.join(900)
    desk.wait(60)
    if "error" in outcome:
        raise SystemExit(f"the run failed: {outcome['error']}")
    (one,) = outcome["result"]["report"]["clients"][0]["small_files"]["sizes"]
    if one["engine"] != "smbclient":
        raise SystemExit(f"the phase ran {one['engine']}, not smbclient")
    return {o["op"]: o["files_per_s"] for o in one["ops"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)  # single rounds swing by 10-15%: the median of 8
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g"]))
    ratios: dict[str, list[float]] = {op: [] for op in SMALL_OPS}
    try:
        with tempfile.TemporaryDirectory() as tmp, nas_api(lab, Path(tmp)) as (api, urls):
            for i in range(args.rounds):
                rates: dict[str, dict[str, float]] = {}
                order = ["raw", "tengig"] if i % 2 == 0 else ["tengig", "raw"]
                for who in order:
                    rates[who] = (raw_round(lab, Path(tmp), args.size, args.count) if who == "raw"
                                  else tengig_round(lab, api, urls["desk"], args.size, args.count))
                for op in SMALL_OPS:
                    ratios[op].append(rates["tengig"][op] / rates["raw"][op])
                print(f"round {i + 1} ({order[0]} first): " + "; ".join(
                    f"{op} raw {rates['raw'][op]:,.0f} tengig {rates['tengig'][op]:,.0f} files/s" for op in SMALL_OPS),
                    flush=True)
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"{exc.cmd}: {exc.stderr}") from exc
    finally:
        lab.down()
    failed = []
    for op, values in ratios.items():
        median = statistics.median(values)
        goal = f"; goal {GOAL[0]:.2f}-{GOAL[1]:.2f}" if op in COMPARED else " (batch-timed only, not compared)"
        print(f"{op} {args.count} x {args.size} B: the phase / raw smbclient median {median:.3f} (min "
              f"{min(values):.3f}, max {max(values):.3f}, {len(values)} rounds{goal})")
        if op in COMPARED and not GOAL[0] <= median <= GOAL[1]:
            failed.append(op)
    if failed:
        print(f"outside the goal: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
