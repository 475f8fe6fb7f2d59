"""Mounted-share copies against smbclient on the same path (not a test): the lab at desk-nas=1g, the share
mounted on desk with smbnetfs (tests/bench/mounted_share.py), and in alternating order each round: raw
`smbclient put`/`get` of one fresh file, and tengig's own mounted copy (desk/mounted_copy.py, what
`tengig client join --mount` runs) of another, each read once after a cache drop on the machine (the same
cache state for both); and `dd` with O_DIRECT through the same mount (the mount's own speed, no tengig
code). Prints each round's MiB/s and the median ratios mounted/smbclient (goal: within 5%) and
mounted/dd per direction.

Usage: .venv/bin/python scripts/bench_mounted.py [--rounds N] [--size-mib M]   (takes the lab down at the end)"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.bench.mounted_share import smbnetfs_share  # noqa: E402  the lab's own mount

from tengig.bench.parse.copy_parse import parse_own_copy  # noqa: E402
from tengig.desk import mounted_copy  # noqa: E402
from tengig.lab import Lab, build_spec  # noqa: E402
from tengig.units import MiB  # noqa: E402

RAW = re.compile(r"(?:putting|getting) file .* \(([\d.]+) (?:KiloBytes/sec|kb/s)\)")  # both KiB/s


def _cold(lab) -> None:
    lab.runner.run(["sync"], timeout=60)
    lab.runner.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], timeout=60)


def _smbclient(lab, command: str) -> float:
    done = lab.smbclient("desk", command, timeout=300)
    m = RAW.search(done.stdout + done.stderr)
    if not m:
        raise SystemExit(f"smbclient {command}: {done.stdout + done.stderr}")
    return float(m.group(1)) * 1024


def _mounted(line: str, direction: str, size: int) -> float:
    return parse_own_copy(line, direction=direction, expected_bytes=size).bytes_per_s


def _dd(argv: list[str], size: int) -> float:
    started = time.monotonic()
    subprocess.run(["dd", *argv, "bs=4M", "status=none"], check=True, timeout=300)
    return size / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--size-mib", type=int, default=256)
    args = parser.parse_args()
    size = args.size_mib * MiB
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g"]))
    ratios: dict[str, list[float]] = {"write": [], "read": []}
    against_dd: dict[str, list[float]] = {"write": [], "read": []}
    try:
        with tempfile.TemporaryDirectory() as tmp, smbnetfs_share(lab, "desk", Path(tmp) / "home") as share:
            src = Path(tmp) / "src.dat"
            src.write_bytes(os.urandom(size))
            (share / "bench-mounted").mkdir(exist_ok=True)
            for i in range(args.rounds):
                raw_name, own = f"bench-mounted\\raw{i}.dat", share / "bench-mounted" / f"own{i}.dat"
                dd = share / "bench-mounted" / f"dd{i}.dat"
                steps = [("raw", "write", lambda: _smbclient(lab, f"put {src} {raw_name}")),
                         ("own", "write", lambda: _mounted(mounted_copy.put(src, own, size), "write", size)),
                         ("dd", "write", lambda: _dd([f"if={src}", f"of={dd}", "oflag=direct"], size))]
                rates: dict[tuple[str, str], float] = {}
                for who, direction, step in steps if i % 2 == 0 else steps[::-1]:
                    rates[who, direction] = step()
                reads = [("raw", "read", lambda: _smbclient(lab, f"get {raw_name} /dev/null")),
                         ("own", "read", lambda: _mounted(mounted_copy.get(own, size), "read", size)),
                         ("dd", "read", lambda: _dd([f"if={dd}", "of=/dev/null", "iflag=direct"], size))]
                for who, direction, step in reads if i % 2 == 0 else reads[::-1]:
                    _cold(lab)
                    rates[who, direction] = step()
                for direction in ("write", "read"):
                    ratios[direction].append(rates["own", direction] / rates["raw", direction])
                    against_dd[direction].append(rates["own", direction] / rates["dd", direction])
                print(f"round {i + 1}: " + "; ".join(
                    f"{d} smbclient {rates['raw', d] / MiB:.1f} mounted {rates['own', d] / MiB:.1f} dd "
                    f"{rates['dd', d] / MiB:.1f} MiB/s" for d in ("write", "read")), flush=True)
                own.unlink()
                dd.unlink()
                lab.smbclient("desk", f"del {raw_name}", timeout=60)
            os.rmdir(share / "bench-mounted")
    finally:
        lab.down()
    for direction, values in ratios.items():
        print(f"{direction}: mounted/smbclient median {statistics.median(values):.3f} "
              f"(min {min(values):.3f}, max {max(values):.3f}, {len(values)} rounds; goal 0.95-1.05); "
              f"mounted/dd on the same mount median {statistics.median(against_dd[direction]):.3f}")


if __name__ == "__main__":
    main()
