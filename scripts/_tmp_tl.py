"""Joined-path benchmark (not a test): tengig running on the lab's nas as system local, desk joined over
its cable, the quick preset with its defaults; then the raw tools on the same path, in the same run:

  - the quick verdict's time, from the desk joining to the verdict (goal: <= 40 s at 1g);
  - SMB read: tengig's median against raw `smbclient get` of fresh files of the same size, each read once
    after a page-cache drop (cold, as tengig's uncached files are), median of 3 (goal: >= 0.97);
  - iperf3: tengig's 1-stream desk -> nas figure against raw `iperf3 -c` with the same seconds (goal:
    within 2%);
  - the bytes the run wrote to the NAS's pool.

Usage: .venv/bin/python scripts/bench_joined.py [--link desk-nas=1g]   (takes the lab down at the end)"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.bench.joined_harness import join, nas_api, start_run  # noqa: E402  the lab's own way to start both ends

from tengig.bench.suite import NET_OMIT, NET_SECONDS  # noqa: E402
from tengig.lab import Lab, build_spec  # noqa: E402
from tengig.units import GiB, MiB  # noqa: E402
from tengig.bench.report_text import report_text  # noqa: E402
from tengig.bench.suite import BenchReport  # noqa: E402
from raw_tools import raw_iperf3  # noqa: E402  scripts/raw_tools.py

RAW_GET = re.compile(r"getting file .* of size (\d+) as /dev/null \(([\d.]+) KiloBytes/sec\)")


def _arc(lab) -> tuple[int, int]:
    done = lab.runner.run(["grep", "-H", "", "/zfs-kstat/zfs/arcstats/hits", "/zfs-kstat/zfs/arcstats/misses"],
                          timeout=30)
    values = dict(line.rsplit("/", 1)[-1].split(":") for line in done.stdout.split())
    return int(values["hits"]), int(values["misses"])


def raw_smb_read(lab, size: int, runs: int = 3) -> tuple[float, float]:
    src = lab.paths.run / "bench" / "raw.dat"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_bytes(os.urandom(size))
    rates, hits, misses = [], 0, 0
    try:
        for i in range(runs):
            lab.smbclient("desk", f"put {src} raw-{i}.dat", timeout=300)
            lab.runner.run(["sync"], timeout=60)
            lab.runner.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], timeout=60)
            h0, m0 = _arc(lab)
            done = lab.smbclient("desk", f"get raw-{i}.dat /dev/null", timeout=300)
            h1, m1 = _arc(lab)
            hits, misses = hits + h1 - h0, misses + m1 - m0
            m = RAW_GET.search(done.stdout + done.stderr)
            if not m or int(m.group(1)) != size:
                raise SystemExit(f"raw smbclient did not read {size} bytes: {done.stdout + done.stderr}")
            rates.append(float(m.group(2)) * 1024)
            lab.smbclient("desk", f"del raw-{i}.dat", timeout=60)
    finally:
        src.unlink()
    return statistics.median(rates), hits / max(1, hits + misses)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--link", default="desk-nas=1g")
    args = ap.parse_args()
    lab = Lab()
    lab.down()
    lab.up(build_spec([args.link]))
    try:
        with tempfile.TemporaryDirectory() as tmp, nas_api(lab, Path(tmp)) as (api, urls):
            thread, outcome = start_run(api, {"system": "local", "kind": "all", "join": 1, "share": "share"})
            if "error" in outcome:
                raise SystemExit(f"the run did not start: {outcome['error']}")
            started = time.monotonic()
            desk = join(lab, "desk", urls["desk"], outcome["token"])
            thread.join(900)
            took = time.monotonic() - started
            desk.wait(30)
            if "error" in outcome:
                raise SystemExit(f"the run failed: {outcome['error']}")
            raw = api.call("tengig.results.get", outcome["result"]["run_id"])["raw"]
        for r in raw:
            print(f"  {r.get('seconds') or 0:6.2f} {r['tool']:10} {' '.join(r.get('argv') or [])[:150]}")
        import json; print(json.dumps({"pool": [(ph["test"], ph["direction"], ph["bytes_per_s"]["values"], ph["bytes_per_s"].get("stopped_because")) for ph in outcome["result"]["report"]["pool"]["phases"]], "skipped": outcome["result"]["report"]["clients"][0].get("network_skipped"), "smb": [(d, outcome["result"]["report"]["clients"][0]["smb"][d]["bytes_per_s"]) for d in ("read","write")]}, indent=1))
        spent: dict[str, float] = {}
        for r in raw:
            spent[r["tool"]] = spent.get(r["tool"], 0.0) + (r.get("seconds") or 0.0)
        print("seconds per tool: " + ", ".join(f"{t} {s:.1f}" for t, s in sorted(spent.items(), key=lambda i: -i[1])
                                                if s >= 0.5))
        result = outcome["result"]
        report = result["report"]
        client = report["clients"][0]
        print(f"{args.link}: quick verdict with desk joined in {took:.1f} s (goal <= 40 s): {result['summary']}")
        smb = client["smb"]
        ours = smb["read"]["bytes_per_s"]["median"]
        raw, raw_hits = raw_smb_read(lab, smb["file_size"])
        print(f"SMB read {smb['file_size'] // MiB} MiB, cold: tengig {ours / MiB:.1f} MiB/s (median of "
              f"{len(smb['read']['bytes_per_s']['values'])}, ARC hits {100 * smb['read']['arc_hit_ratio']:.1f}%), "
              f"raw smbclient {raw / MiB:.1f} MiB/s (ARC hits {100 * raw_hits:.1f}%), ratio {ours / raw:.3f} "
              "(goal >= 0.97)")
        one = next(m for m in client["network"] if m["streams"] == 1 and m["direction"] == "write")
        raw_bps = raw_iperf3(lab, "nas", "desk", client["link"]["server_address"], NET_SECONDS["quick"],
                             omit=NET_OMIT["quick"])
        print(f"iperf3 desk -> nas 1 stream: tengig {one['goodput_bps'] / 1e9:.3f} Gb/s, raw {raw_bps / 1e9:.3f} "
              f"Gb/s, ratio {one['goodput_bps'] / raw_bps:.4f} (goal within 0.98-1.02)")
        print(f"bytes written to the pool by the run: {report['bytes_written'] / GiB:.2f} GiB "
              f"(pool {report['pool']['bytes_written'] / GiB:.2f}, SMB {smb['bytes_written'] / GiB:.2f})")
    finally:
        lab.down()


if __name__ == "__main__":
    main()
