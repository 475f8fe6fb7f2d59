"""Joined-path benchmark (not a test): tengig running on the lab's nas as system local, desk joined over
its cable, the quick preset with its defaults; then the raw tools on the same path, in the same run:

  - the quick verdict's time, from the desk joining to the verdict (goal: under 30 s at 1g);
  - SMB read: tengig's median against raw `smbclient get` of fresh files of the same size, each read once
    after a page-cache drop: like tengig (as many puts, uncached, the pool left to finish writing, then the
    reads; goal: >= 0.97), and alternating (put one, read it at once) for comparison;
  - iperf3: tengig's 1-stream desk -> nas figure against raw `iperf3 -c` with the same seconds (goal:
    within 2%);
  - the bytes the run wrote to the NAS's pool;
  - with --paired N: N rounds of tengig and the raw tools alternately first, a fixed count of tests each
    (SMB reads like tengig's, and iperf3), the ratio per round and its 90% interval (docs/lab.md §9: at
    10g this machine's throughput drifts by 10-20% from minute to minute, so only paired rounds compare).

Usage: .venv/bin/python scripts/bench_joined.py [--link desk-nas=1g] [--rounds N] [--paired N [--repeats R]]
       [--pool-in-memory] [--kind all|smb]
(takes the lab lock, /run/tengig/lab.lock, for its whole run, and the lab down at the end; with N rounds, the median of each ratio at the end. --pool-in-memory keeps
the lab's data in /dev/shm/tengig-bench-lab, removed by the lab's down at the end or at the next start.)"""
from __future__ import annotations

import argparse
import math
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.bench.joined_harness import join, nas_api, start_run  # noqa: E402  the lab's own way to start both ends
from tests.lab_lock import lab_lock  # noqa: E402

from tengig.bench.run.suite import NET_OMIT, NET_SECONDS  # noqa: E402
from tengig.lab import Lab, build_spec  # noqa: E402
from tengig.lab.paths import LabPaths  # noqa: E402
from tengig.backends.linux.zfs import ZfsCli  # noqa: E402
from tengig.bench.context import BenchContext  # noqa: E402
from tengig.lab.hosts import LabHosts  # noqa: E402
from tengig.units import GiB, MiB  # noqa: E402
from raw_tools import raw_iperf3  # noqa: E402  scripts/raw_tools.py

MEMORY_DATA = Path("/dev/shm/tengig-bench-lab")  # --pool-in-memory: the lab's data (its pool image) in tmpfs
RAW_GET = re.compile(r"getting file .* of size (\d+) as /dev/null \(([\d.]+) KiloBytes/sec\)")


def _arc(lab) -> tuple[int, int]:
    done = lab.runner.run(["grep", "-H", "", "/zfs-kstat/zfs/arcstats/hits", "/zfs-kstat/zfs/arcstats/misses"],
                          timeout=30)
    values = dict(line.rsplit("/", 1)[-1].split(":") for line in done.stdout.split())
    return int(values["hits"]), int(values["misses"])


def _get(lab, name: str, size: int) -> tuple[float, int, int]:
    """One cold read of the share's ``name`` from desk: (bytes/s, ARC hits, ARC misses)."""
    lab.runner.run(["sync"], timeout=60)
    lab.runner.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], timeout=60)
    h0, m0 = _arc(lab)
    done = lab.smbclient("desk", f"get {name} /dev/null", timeout=300)
    h1, m1 = _arc(lab)
    m = RAW_GET.search(done.stdout + done.stderr)
    if not m or int(m.group(1)) != size:
        raise SystemExit(f"raw smbclient did not read {size} bytes: {done.stdout + done.stderr}")
    return float(m.group(2)) * 1024, h1 - h0, m1 - m0


def raw_smb_read(lab, size: int, copies: int, order: str, reads: int | None = None) -> tuple[list[float], float]:
    """Raw `smbclient get` of fresh files of ``size`` from desk: each read's bytes/s, and the ARC hit ratio.

    order "like-tengig": tengig's sequence and cache state: ``copies`` puts into a dataset of the share
    with primarycache=metadata, the pool left to finish writing, then primarycache=all and each file read
    once after a page-cache drop, the first ``reads`` of them (as many as tengig read: it stops once its
    runs settle, and the median of 2 is their mean, of 3 the middle one, so the same count is the same
    estimator). order "alternating": put one file, read it at once (the comparison earlier sessions used;
    its reads compete with the write-back of the file just put)."""
    src = lab.paths.run / "bench" / "raw.dat"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_bytes(os.urandom(size))
    dataset, directory = "tgtank/smb/raw", "raw"
    run = lab.runner.run
    run(["zfs", "create", "-o", "compression=off", "-o", "atime=off", dataset], timeout=60)
    mnt = run(["zfs", "get", "-Hp", "-o", "value", "mountpoint", dataset], timeout=60).stdout.strip()
    owner = run(["stat", "-c", "%u:%g", str(Path(mnt).parent)], timeout=10).stdout.strip()
    run(["chown", owner, mnt], timeout=10)
    rates, hits, misses = [], 0, 0
    try:
        if order == "like-tengig":
            run(["zfs", "set", "primarycache=metadata", dataset], timeout=60)
            for i in range(copies):
                lab.smbclient("desk", f"put {src} {directory}\\r{i}.dat", timeout=300)
            ZfsCli(BenchContext(LabHosts(lab)), "nas").settle_writes("tgtank")  # as tengig waits
            run(["zfs", "set", "primarycache=all", dataset], timeout=60)
            for i in range(reads or copies):
                rate, h, m = _get(lab, f"{directory}\\r{i}.dat", size)
                rates.append(rate)
                hits, misses = hits + h, misses + m
        else:
            for i in range(copies):
                lab.smbclient("desk", f"put {src} {directory}\\r{i}.dat", timeout=300)
                rate, h, m = _get(lab, f"{directory}\\r{i}.dat", size)
                rates.append(rate)
                hits, misses = hits + h, misses + m
    finally:
        src.unlink()
        for _ in range(10):  # smbd may hold the directory a moment after the last client left
            if run(["zfs", "destroy", "-r", dataset], timeout=60, check=False).returncode == 0:
                break
            time.sleep(1)
    return rates, hits / max(1, hits + misses)


def print_timeline(raw: list[dict], steps: list[tuple[float, str]], joined: float, took: float) -> None:
    """Where the run's seconds went, from the desk joining: every tool the run recorded (its start, its seconds),
    the progress it said (as it reached this script: late by the job events' pace), and the gaps between tools
    (waits, handshakes, polls), summed per phase."""
    events = [(r["started"] - joined, r.get("seconds") or 0.0, r["tool"], " ".join(r["argv"][:4])) for r in raw]
    events += [(t - joined, None, said, "") for t, said in steps if t >= joined - 1]
    print("timeline (s from the desk joining; tools with their seconds, '>' progress as heard, '.' a gap >= 0.1 s):")
    busy_until, idle = 0.0, 0.0
    for start, seconds, what, argv in sorted(events, key=lambda e: e[0]):
        if seconds is None:
            print(f"  {start:6.2f}        > {what[:90]}")
            continue
        if start - busy_until >= 0.1:
            print(f"  {busy_until:6.2f} {start - busy_until:5.2f} .")
            idle += start - busy_until
        print(f"  {start:6.2f} {seconds:5.2f} {what[:22]:22} {argv[:70]}")
        busy_until = max(busy_until, start + seconds)
    print(f"  {busy_until:6.2f} {took - busy_until:5.2f} . to the verdict in this script")
    print(f"gaps between tools: {idle + took - busy_until:.1f} s of {took:.1f} s")
    print("phases: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in phases(raw, joined, took)))


def phases(raw: list[dict], joined: float, took: float) -> list[tuple[str, float]]:
    """The run's seconds from the desk joining, cut where its phases start: the NAS's first program after the
    join, the first fio, the first iperf3, the first SMB program on the desk."""
    starts = {}
    for r in sorted(raw, key=lambda r: r["started"]):
        t, tool = r["started"] - joined, r["tool"]
        if t < 0:
            continue
        starts.setdefault("desk joining", 0.0)
        starts.setdefault("NAS setup", t)
        for name, prefix in (("pool", "fio"), ("network", "iperf3"), ("SMB", "smb")):
            if tool.startswith(prefix):
                starts.setdefault(name, t)
    order = sorted(starts.items(), key=lambda item: item[1]) + [("end", took)]
    return [(name, end - start) for (name, start), (_, end) in zip(order, order[1:])]


def tengig_run(lab, request: dict, timeline: bool = False) -> tuple[dict, list[dict], float]:
    """One run of tengig on nas (system local) with desk joined: (its result, its raw records, seconds from
    the desk joining to the verdict). ``timeline``: print where those seconds went."""
    with tempfile.TemporaryDirectory() as tmp, nas_api(lab, Path(tmp)) as (api, urls):
        thread, outcome = start_run(api, {"system": "local", "join": 1, "share": "share", **request})
        if "error" in outcome:
            raise SystemExit(f"the run did not start: {outcome['error']}")
        started, joined = time.monotonic(), time.time()
        desk = join(lab, "desk", urls["desk"], outcome["token"])
        thread.join(900)
        took = time.monotonic() - started
        desk.wait(30)
        if "error" in outcome:
            raise SystemExit(f"the run failed: {outcome['error']}")
        raw = api.call("tengig.results.get", outcome["result"]["run_id"])["raw"]
    if timeline:
        print_timeline(raw, outcome["steps"], joined, took)
    return outcome["result"], raw, took


def one_round(lab, link: str, kind: str = "all") -> dict[str, float]:
    """One quick run with desk joined, then the raw tools; what it printed, as numbers."""
    result, raw, took = tengig_run(lab, {"kind": kind}, timeline=True)
    spent: dict[str, float] = {}
    for r in raw:
        spent[r["tool"]] = spent.get(r["tool"], 0.0) + (r.get("seconds") or 0.0)
    print("seconds per tool: " + ", ".join(f"{t} {s:.1f}" for t, s in sorted(spent.items(), key=lambda i: -i[1])
                                            if s >= 0.5))
    report = result["report"]
    client = report["clients"][0]
    print(f"{link}: quick verdict with desk joined in {took:.1f} s (goal < 30 s): {result['summary']}")
    smb = client["smb"]
    ours = smb["read"]["bytes_per_s"]["median"]
    copies = len(smb["write"]["bytes_per_s"]["values"])
    print(f"SMB read {smb['file_size'] // MiB} MiB, cold: tengig {ours / MiB:.1f} MiB/s (median of "
          f"{len(smb['read']['bytes_per_s']['values'])}, ARC hits {100 * smb['read']['arc_hit_ratio']:.1f}%, "
          f"write-back: {smb['read'].get('write_back')})")
    out = {"seconds": took}
    for order in ("like-tengig", "alternating"):
        raw_rates, raw_hits = raw_smb_read(lab, smb["file_size"], copies, order,
                                           reads=len(smb["read"]["bytes_per_s"]["values"]))
        raw_rate = statistics.median(raw_rates)
        out[order] = ours / raw_rate
        print(f"  raw smbclient, {order}: {raw_rate / MiB:.1f} MiB/s (ARC hits {100 * raw_hits:.1f}%), tengig / raw "
              f"{ours / raw_rate:.3f}" + (" (goal >= 0.97)" if order == "like-tengig" else ""))
    one = next((m for m in client["network"] if m["streams"] == 1 and m["direction"] == "write"), None)
    if one is not None:
        raw_bps = raw_iperf3(lab, "nas", "desk", client["link"]["server_address"], NET_SECONDS["quick"],
                             omit=NET_OMIT["quick"])
        out["iperf3"] = one["goodput_bps"] / raw_bps
        print(f"iperf3 desk -> nas 1 stream: tengig {one['goodput_bps'] / 1e9:.3f} Gb/s, raw {raw_bps / 1e9:.3f} "
              f"Gb/s, ratio {out['iperf3']:.4f} (goal within 0.98-1.02)")
    out["written"] = report["bytes_written"] / GiB
    pool = f"pool {report['pool']['bytes_written'] / GiB:.2f}, " if report.get("pool") else ""
    print(f"bytes written to the pool by the run: {out['written']:.2f} GiB ({pool}SMB {smb['bytes_written'] / GiB:.2f})")
    return out


def _per_round(rounds: list[tuple[list[float], list[float]]]) -> float:
    """The paired estimate: each round's median of tengig over its median of raw, their geometric mean.
    A round's two halves are seconds apart, so the lab's drift from minute to minute cancels in its ratio."""
    return math.exp(statistics.mean(math.log(statistics.median(t) / statistics.median(r)) for t, r in rounds))


def _interval(rounds: list[tuple[list[float], list[float]]], draws: int = 2000) -> tuple[float, float]:
    """A 90% bootstrap interval of the paired estimate, the rounds resampled whole."""
    rng = random.Random(0)
    estimates = sorted(_per_round([rounds[rng.randrange(len(rounds))] for _ in rounds]) for _ in range(draws))
    return estimates[int(0.05 * draws)], estimates[int(0.95 * draws) - 1]


def paired(lab, rounds: int, repeats: int) -> dict[str, float]:
    """tengig and the raw tools on the same path, alternately first (ABBA: a drift of the lab between the
    two halves of a round cancels over the rounds), each with a fixed count of tests (the same estimator).
    SMB: ``repeats`` copies each way, every file read once cold, tengig's reads against raw smbclient's
    like-tengig reads. iperf3: tengig's 1-stream desk -> nas test against raw iperf3 with the same seconds.
    Returns the paired estimates (_per_round); the pooled ratio (median of all of tengig's values over the
    median of all of the raw ones) is printed beside them."""
    per_round: dict[str, list[tuple[list[float], list[float]]]] = {"smb": [], "iperf3": []}
    size = net_link = None
    for n in range(rounds):
        first = "tengig" if n % 2 == 0 else "raw"
        got: dict[str, dict[str, list[float]]] = {}
        for side in (first, "raw" if first == "tengig" else "tengig"):
            # each side: iperf3, then the SMB copies, so every network test follows some side's SMB phase
            if side == "tengig":
                net = tengig_run(lab, {"kind": "net"})[0]["report"]["clients"][0]
                one = next(m for m in net["network"] if m["streams"] == 1 and m["direction"] == "write")
                net_link = net["link"]["server_address"]
                smb = tengig_run(lab, {"kind": "smb", "repeats": repeats})[0]["report"]["clients"][0]["smb"]
                size = smb["file_size"]
                got[side] = {"smb": smb["read"]["bytes_per_s"]["values"], "iperf3": [one["goodput_bps"]]}
            else:
                if size is None or net_link is None:
                    raise SystemExit("the raw tools need tengig's file size and address: tengig goes first")
                # as tengig's order: 1 stream read (nas -> desk), then the 1 stream write compared
                raw_iperf3(lab, "nas", "desk", net_link, NET_SECONDS["quick"], omit=NET_OMIT["quick"], reverse=True)
                bps = raw_iperf3(lab, "nas", "desk", net_link, NET_SECONDS["quick"], omit=NET_OMIT["quick"])
                rates, _ = raw_smb_read(lab, size, repeats, "like-tengig")
                got[side] = {"smb": rates, "iperf3": [bps]}
        for key in per_round:
            per_round[key].append((got["tengig"][key], got["raw"][key]))
        print(f"-- paired round {n + 1} of {rounds} ({first} first): SMB read {size // MiB} MiB, MiB/s: tengig "
              + " ".join(f"{v / MiB:.0f}" for v in got["tengig"]["smb"]) + ", raw "
              + " ".join(f"{v / MiB:.0f}" for v in got["raw"]["smb"])
              + f"; iperf3 1 stream desk -> nas: tengig {got['tengig']['iperf3'][0] / 1e9:.2f} Gb/s, raw "
              f"{got['raw']['iperf3'][0] / 1e9:.2f} Gb/s", flush=True)
    out = {}
    for key, goal in (("smb", "goal >= 0.97"), ("iperf3", "goal within 0.98-1.02")):
        out[key] = _per_round(per_round[key])
        low, high = _interval(per_round[key])
        ours = [v for t, _ in per_round[key] for v in t]
        theirs = [v for _, r in per_round[key] for v in r]
        a, b = statistics.median(ours), statistics.median(theirs)
        unit = (lambda v: f"{v / MiB:.1f} MiB/s") if key == "smb" else (lambda v: f"{v / 1e9:.3f} Gb/s")
        print(f"paired {key} over {rounds} rounds: tengig / raw {out[key]:.3f} (each round's ratio, their geometric "
              f"mean; 90% interval {low:.3f}-{high:.3f}; {goal}); pooled: tengig median {unit(a)} over "
              f"{len(ours)}, raw {unit(b)} over {len(theirs)}, ratio {a / b:.3f}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--link", default="desk-nas=1g")
    ap.add_argument("--rounds", type=int, default=1, help="Runs in a row (one lab); the medians at the end.")
    ap.add_argument("--kind", default="all", choices=("all", "smb"), help="smb: the SMB copies alone (no pool test "
                    "and no iperf3 before them).")
    ap.add_argument("--paired", type=int, default=0, metavar="N",
                    help="First N rounds of tengig and the raw tools alternately first, with --repeats tests each.")
    ap.add_argument("--repeats", type=int, default=5, help="SMB copies each way per paired round.")
    ap.add_argument("--pool-in-memory", action="store_true",
                    help="The lab's pool image in RAM (tmpfs): cold reads then come from zfs-fuse, not from this "
                         "machine's own disk under the image, whose throughput varies run to run.")
    args = ap.parse_args()
    with lab_lock():  # one lab per machine: a lab test or another script waits for this one
        measure(args)


def measure(args: argparse.Namespace) -> None:
    lab = Lab(LabPaths(data=MEMORY_DATA)) if args.pool_in_memory else Lab()
    lab.down()
    lab.up(build_spec([args.link]))
    try:
        if args.paired:
            paired(lab, args.paired, args.repeats)
        rounds = []
        for n in range(args.rounds):
            if args.rounds > 1:
                print(f"-- round {n + 1} of {args.rounds}")
            rounds.append(one_round(lab, args.link, args.kind))
        if args.rounds > 1:
            for key in ("like-tengig", "alternating", "iperf3", "seconds"):
                values = [r[key] for r in rounds if key in r]
                if not values:
                    continue
                print(f"{key}: median {statistics.median(values):.3f} over {len(values)} rounds "
                      f"({', '.join(f'{v:.3f}' for v in values)})")
    finally:
        lab.down()


if __name__ == "__main__":
    main()
