"""The small-file phase against the same smbclient commands run raw on the same path (not a test): the lab at
desk-nas=1g, desk's 2,000 files of 4 KiB (the full preset's) written and read back in alternating order each
round:
- tengig: the batch as a joined desktop runs it (desk/smallfiles.py: smbclient under stdbuf, each line timed as
  it arrives) and as the NAS reads it (bench/parse/smallfiles_parse.py: files between the two pwd marks);
- raw: the same smbclient -c script without the marks, without stdbuf and without tengig's reader, timed from
  outside, less the same smbclient's connection alone (`cd DIR`, the median of 3, timed the same way).
Prints each round's files/s and the median ratio tengig/raw per operation (goal: within 5%).

Usage: .venv/bin/python scripts/bench_smallfiles.py [--rounds N] [--count N] [--size BYTES]   (takes the lab
down at the end)"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tengig.bench.parse.smallfiles_parse import parse_smallfiles  # noqa: E402
from tengig.desk.smallfiles import STDBUF, SmallSet, smbclient_commands, timed_run  # noqa: E402
from tengig.lab import Lab, build_spec, samba  # noqa: E402

DIRECTORY = "bench-small\\small-{size}"


def _argv(lab: Lab, commands: str) -> list[str]:
    spec = lab.require_up().spec
    return ["ip", "netns", "exec", lab.netns("desk"), *samba.smbclient_argv(lab.paths, "desk", spec.nas, commands)]


def _wall(lab: Lab, commands: str) -> float:
    started = time.monotonic()
    done = lab.run("desk", samba.smbclient_argv(lab.paths, "desk", lab.require_up().spec.nas, commands),
                   timeout=600, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"smbclient -c {commands!r}: {done.stdout + done.stderr}")
    return seconds


def _raw(lab: Lab, op: str, directory: str, small: SmallSet) -> float:
    """files/s of the raw batch: its wall time less the connection's."""
    script = smbclient_commands(op, directory, small).replace("pwd; ", "").replace("; pwd", "")
    connect = statistics.median(_wall(lab, f"cd {directory}") for _ in range(3))
    return small.count / (_wall(lab, script) - connect)


def _tengig(lab: Lab, op: str, directory: str, small: SmallSet) -> float:
    argv = [*_argv(lab, smbclient_commands(op, directory, small))]
    argv[4:4] = STDBUF  # ip netns exec NS stdbuf ... smbclient ...: as the desktop runs it, in desk's namespace
    sub = timed_run(argv, timeout=600)
    if sub["exit_code"] != 0:
        raise SystemExit(f"tengig's batch {op}: {sub['stdout'][-2000:]}")
    timing = parse_smallfiles("smbclient", sub["stdout"], op, expected=small.count)
    return timing.files / timing.seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--size", type=int, default=4096)
    args = parser.parse_args()
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g"]))
    ratios: dict[str, list[float]] = {"write": [], "read": []}
    directory = DIRECTORY.format(size=args.size)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            small = SmallSet(Path(tmp), args.size, args.count)
            lab.smbclient("desk", "mkdir bench-small", timeout=60)
            for i in range(args.rounds):
                rates: dict[tuple[str, str], float] = {}
                order = [("raw", _raw), ("tengig", _tengig)]
                for who, measure in order if i % 2 == 0 else order[::-1]:
                    lab.smbclient("desk", f"mkdir {directory}", timeout=60)
                    rates[who, "write"] = measure(lab, "write", directory, small)
                    rates[who, "read"] = measure(lab, "read", directory, small)
                    lab.smbclient("desk", f"cd {directory}; del *; cd ..; rmdir small-{args.size}", timeout=300)
                for op in ratios:
                    ratios[op].append(rates["tengig", op] / rates["raw", op])
                print(f"round {i + 1}: " + "; ".join(
                    f"{op} raw {rates['raw', op]:,.0f} tengig {rates['tengig', op]:,.0f} files/s" for op in ratios),
                    flush=True)
            lab.smbclient("desk", "rmdir bench-small", timeout=60)
    finally:
        lab.down()
    for op, values in ratios.items():
        print(f"{op} {args.count} x {args.size} B: tengig/raw smbclient median {statistics.median(values):.3f} "
              f"(min {min(values):.3f}, max {max(values):.3f}, {len(values)} rounds; goal 0.95-1.05)")


if __name__ == "__main__":
    main()
