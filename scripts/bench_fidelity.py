"""Fidelity benchmark (not a test): how close tengig's own figures are to the raw tools, measured in one
run on the lab, plus the quick suite's duration.

  - link: tengig's network result (bench.network.measure) vs raw `iperf3 -J` on the same link, same run;
  - SMB: tengig's SMB read (bench.smb, median) vs raw `smbclient get` of a file of the same size;
  - the quick suite (pool + network + SMB + verdict) wall time, s.

Usage: .venv/bin/python scripts/bench_fidelity.py [--link desk-nas=1g]   (takes the lab down at the end)"""
from __future__ import annotations

import argparse
import os
import re
import tempfile
import time

from tengig.bench.context import BenchContext
from tengig.bench.network import measure
from tengig.bench.smb import SmbBenchRequest, run_smb_bench
from tengig.bench.suite import BenchRunRequest, run_and_record
from tengig.lab import Lab, build_spec
from tengig.lab.bench_adapter import LabBenchSystem, LabHosts, LabSmbEndpoint, lab_link
from tengig.results.store import ResultStore
from tengig.units import MiB
from raw_tools import raw_iperf3  # scripts/raw_tools.py

RAW_GET = re.compile(r"getting file .* of size (\d+) as /dev/null \(([\d.]+) KiloBytes/sec\)")


def raw_smbclient_read(lab, size):
    src = lab.paths.run / "bench" / "fidelity.dat"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_bytes(os.urandom(size))
    try:
        lab.smbclient("desk", f"put {src} fidelity.dat", timeout=300)
        lab.runner.run(["sync"], timeout=60)
        lab.runner.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], timeout=60)
        done = lab.smbclient("desk", "get fidelity.dat /dev/null", timeout=300)
    finally:
        lab.smbclient("desk", "del fidelity.dat", timeout=60)
        src.unlink()
    m = RAW_GET.search(done.stdout + done.stderr)
    if not m or int(m.group(1)) != size:
        raise SystemExit(f"raw smbclient did not read {size} bytes: {done.stdout + done.stderr}")
    return float(m.group(2)) * 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--link", default="desk-nas=1g")
    ap.add_argument("--seconds", type=int, default=10)
    args = ap.parse_args()
    lab = Lab()
    lab.down()
    lab.up(build_spec([args.link]))
    try:
        link = lab_link(lab, "desk")
        ours = measure(BenchContext(LabHosts(lab)), link, direction="write", seconds=args.seconds, omit=1).goodput_bps
        raw = raw_iperf3(lab, link.server, link.client, link.server_address, args.seconds,
                         bind=link.client_address)
        print(f"link {link.name}: tengig {ours / 1e6:.1f} Mb/s, raw iperf3 {raw / 1e6:.1f} Mb/s, ratio {ours / raw:.4f}")

        smb = run_smb_bench(BenchContext(LabHosts(lab)), LabSmbEndpoint(lab), SmbBenchRequest(client="desk"))
        raw_smb = raw_smbclient_read(lab, smb.file_size)
        ours_smb = smb.read.bytes_per_s.median
        print(f"SMB read {smb.file_size // MiB} MiB: tengig {ours_smb / MiB:.1f} MiB/s (median of "
              f"{len(smb.read.bytes_per_s.values)}), raw smbclient {raw_smb / MiB:.1f} MiB/s, ratio {ours_smb / raw_smb:.4f}")

        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            run_and_record(LabBenchSystem(lab), BenchRunRequest(kind="all"), ResultStore(f"{tmp}/r.sqlite3"))
            print(f"quick suite (pool + network + SMB + verdict, desk): {time.monotonic() - started:.1f} s")
    finally:
        lab.down()


if __name__ == "__main__":
    main()
