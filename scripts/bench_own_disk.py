"""The desktop's own-disk test against raw fio on the same file (not a test): in a directory of this machine's
disk, alternately `tengig client join --disk`'s two ways (fio as the desktop runs it, and its own timed
O_DIRECT copy, used where fio is absent) and raw fio with the same options; each round's MB/s and the
median ratios to raw fio per direction (goal: within 5%).

Usage: .venv/bin/python scripts/bench_own_disk.py [--dir /var/tmp] [--rounds N] [--size-mib M]"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tengig.bench.parse.fio_parse import parse_fio_json, require_io  # noqa: E402
from tengig.bench.join.own_disk import parse_own_disk  # noqa: E402
from tengig.desk import own_disk  # noqa: E402
from tengig.runner import Runner  # noqa: E402
from tengig.units import MB, MiB  # noqa: E402


def raw_fio(path: Path, size: int) -> dict[str, float]:
    done = subprocess.run(own_disk.fio_argv(path, size), capture_output=True, text=True, check=True, timeout=600)
    jobs = {j.name: j for j in parse_fio_json(done.stdout)}
    path.unlink(missing_ok=True)
    return {d: require_io(jobs[d], d).bytes_per_s for d in ("write", "read")}


def tengig(directory: Path, size: int, source: Path, *, fio: bool) -> dict[str, float]:
    which = own_disk.shutil.which
    if not fio:
        own_disk.shutil.which = lambda name: None
    try:
        sub = own_disk.measure(Runner(), directory, size, source)
    finally:
        own_disk.shutil.which = which
    disk = parse_own_disk(sub["argv"], sub["stdout"], sub["stderr"], size=size)
    return {"write": disk.write_bytes_per_s, "read": disk.read_bytes_per_s}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size-mib", type=int, default=256)
    args = parser.parse_args()
    size = args.size_mib * MiB
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        directory = Path(tmp)
        source = directory / "source.dat"
        source.write_bytes(os.urandom(size))
        ratios: dict[str, dict[str, list[float]]] = {"fio": {"write": [], "read": []},
                                                     "own copy": {"write": [], "read": []}}
        for i in range(args.rounds):
            steps = [("raw", lambda: raw_fio(directory / "raw.dat", size)),
                     ("fio", lambda: tengig(directory, size, source, fio=True)),
                     ("own copy", lambda: tengig(directory, size, source, fio=False))]
            rates = {name: step() for name, step in (steps if i % 2 == 0 else steps[::-1])}
            for name in ("fio", "own copy"):
                for d in ("write", "read"):
                    ratios[name][d].append(rates[name][d] / rates["raw"][d])
            print(f"round {i + 1}: " + "; ".join(f"{name} write {r['write'] / MB:.1f} read {r['read'] / MB:.1f} MB/s"
                                                for name, r in rates.items()), flush=True)
    for name, by_dir in ratios.items():
        print(f"{name} / raw fio: " + ", ".join(f"{d} median {statistics.median(v):.3f} (min {min(v):.3f}, max "
                                                f"{max(v):.3f})" for d, v in by_dir.items()) + " (goal 0.95-1.05)")


if __name__ == "__main__":
    main()
