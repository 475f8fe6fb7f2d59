"""Fix-prediction benchmark (not a test): how often the dataset fix's prediction holds (issue 35, item 5).

On one lab NAS (system local, desk joined over a 10 Gb/s cable, the pool throttled with --slow-pool and its image
in RAM, so that the pool is SMB's bound and its figure moves little from run to run), N rounds of: the share's
dataset set to a costly value (recordsize 4K) as its admin would, a run with desk joined, tengig.fix.plan's fix
for it, tengig.fix.apply (desk joining its re-measure), and undo. Per round: SMB before, predicted, after (MB/s,
medians), off % and the pool's own fio figure; at the end, the hits within fix/record.py's tolerance over N and
whether the rule keeps its number (fix/record.gain_unknown over these rounds' records, newest first).

Usage: .venv/bin/python scripts/bench_fix_predictions.py [--rounds 10] [--slow-pool MBPS] [--repeats 3]
       [--pool-on-disk] [--value 4K]
(takes the lab lock, /run/tengig/lab.lock, for its whole run; the lab down at the end.)"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.bench.joined_harness import join, nas_api, start_run  # noqa: E402  the lab's own way to start both ends
from tests.lab_lock import lab_lock  # noqa: E402
from tests.fix.lab_fix import LINKS_10G, MEMORY_DATA, RUN, SLOW_POOL_MBPS, apply_joined, copies  # noqa: E402

from tengig.fix.record import PREDICTION_TOLERANCE_PERCENT, gain_unknown  # noqa: E402
from tengig.lab import Lab, build_spec  # noqa: E402
from tengig.lab.paths import LabPaths  # noqa: E402
from tengig.lab.plan import SHARE_DATASET  # noqa: E402

PROP = "recordsize"


def _mb(v: float | None) -> str:
    return "-" if v is None else f"{v / 1e6:.1f}"


def _pool(report: dict, direction: str) -> float | None:
    found = [p["bytes_per_s"]["median"] for p in (report.get("pool") or {}).get("phases", [])
             if p["key"] == "seq1m-q8t1" and p["direction"] == direction]
    return found[0] if found else None


def one_round(lab, api, urls, value: str, repeats: int) -> dict:
    """The costly value set, a run, its fix applied and undone: the fix's outcome, the run's report beside it."""
    lab.runner.run(["zfs", "set", f"{PROP}={value}", SHARE_DATASET], timeout=30)
    thread, outcome = start_run(api, {**RUN, "repeats": repeats})
    desk = join(lab, "desk", urls["desk"], outcome["token"])
    thread.join(900)
    desk.wait(60)
    if "error" in outcome:
        raise SystemExit(f"the run failed: {outcome['error']}")
    run_id, report = outcome["result"]["run_id"], outcome["result"]["report"]
    plan = api.call("tengig.fix.plan", run_id)
    fix = next((f for f in plan["fixes"] if f["name"] == f"dataset-{PROP}"), None)
    if fix is None:
        print(f"  no dataset-{PROP} fix: {report['clients'][0]['verdict']['summary']}")
        return {"report": report, "out": None}
    out = apply_joined(lab, api, urls, {"run_id": run_id, "fix": fix["name"], "confirm": True})
    after = api.call("tengig.results.get", out["after_run_id"])
    if out["state"] == "kept":
        api.call("tengig.fix.undo", run_id)
    return {"report": report, "out": out, "fix": fix, "after": after}


def print_round(n: int, got: dict) -> list[bool]:
    report, out = got["report"], got["out"]
    desk = report["clients"][0]["smb"]
    hits = []
    for d in ("read", "write"):
        p = next((p for p in (out or {}).get("predictions", []) if p["direction"] == d), None)
        pool = _pool(report, d)
        before = desk[d]["bytes_per_s"]["median"]
        if p is None:
            print(f"  {n:2} {d:5} before {_mb(before):>6}  predicted      -  after      -  pool {_mb(pool):>6} MB/s")
            continue
        planned = next(q for q in got["fix"]["predictions"] if q["direction"] == d)
        share = f"{planned['smb_share']:.2f}" if planned.get("smb_share") is not None else "-"
        after = copies(got["after"], d)
        smbd = next(c for c in got["after"]["results"]["clients"] if c["client"] == "desk")["smb"][d]
        smbd = smbd.get("smbd_cpu_percent") or 0
        print(f"  {n:2} {d:5} before {_mb(p['measured_bytes_per_s']):>6}  predicted "
              f"{_mb(p['predicted_bytes_per_s']):>6}  after {_mb(p['measured_after_bytes_per_s']):>6} MB/s  "
              f"{p['off_percent']:+6.1f}%  (ceiling {_mb(p['bound_bytes_per_s'])} MB/s {p['bound']}, share {share}, "
              f"pool fio {_mb(pool)} MB/s, after's copies {' '.join(_mb(v) for v in after)} MB/s, smbd {smbd:.0f}% "
              f"of a core after) {'hit' if p['within'] else 'MISS'}", flush=True)
        hits.append(p["within"])
    return hits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10, help="Fixes applied and undone in a row on one NAS.")
    ap.add_argument("--slow-pool", type=float, default=SLOW_POOL_MBPS, metavar="MBPS",
                    help="The pool's throttle, MB/s (10^6 bytes/s); 0: none (zfs-fuse's own pace).")
    ap.add_argument("--repeats", type=int, default=RUN["repeats"], help="SMB copies each way per run (the fix's "
                    "re-measure makes as many).")
    ap.add_argument("--pool-on-disk", action="store_true", help="The pool's image on this machine's disk (the "
                    "lab's default) in place of RAM (MEMORY_DATA), where the disk's own pace moves the pool's.")
    ap.add_argument("--value", default="4K", help=f"The costly {PROP} set on the share's dataset each round.")
    args = ap.parse_args()
    with lab_lock():  # one lab per machine: a lab test or another script waits for this one
        measure(args)


def measure(args: argparse.Namespace) -> None:
    lab = Lab() if args.pool_on_disk else Lab(LabPaths(data=MEMORY_DATA))
    lab.down()
    lab.up(build_spec(LINKS_10G, slow_pool_mbps=args.slow_pool or None))
    rows: list[dict] = []  # as ResultStore.fixes gives them: newest first
    name = f"dataset-{PROP}"
    print(f"{PROP}={args.value} on {SHARE_DATASET}, {args.repeats} copies each way, the pool's image "
          f"{'on disk' if args.pool_on_disk else 'in RAM'}, throttled to "
          f"{f'{args.slow_pool:g} MB/s' if args.slow_pool else 'none'}, {args.rounds} rounds; per round and "
          f"direction: SMB before, predicted, after (medians, MB/s), after off the prediction", flush=True)
    hits, started = [], time.monotonic()
    try:
        with tempfile.TemporaryDirectory() as tmp, nas_api(lab, Path(tmp)) as (api, urls):
            for n in range(1, args.rounds + 1):
                got = one_round(lab, api, urls, args.value, args.repeats)
                out = got["out"]
                if out is not None:
                    rows.insert(0, {"name": name, "state": out["state"], "data": {"predictions": out["predictions"]}})
                    print(f"  {n:2} {out['state']}: {out['why']}")
                hits.append(all(print_round(n, got)) if out is not None and out["predictions"] else False)
    finally:
        lab.down()
    offs = [abs(p["off_percent"]) for r in rows for p in r["data"]["predictions"]]
    print(f"hits (every direction within {PREDICTION_TOLERANCE_PERCENT:.0f}% of its prediction): {sum(hits)} of "
          f"{len(hits)} rounds; |off| median {statistics.median(offs) if offs else float('nan'):.1f}%, "
          f"max {max(offs, default=float('nan')):.1f}%; {time.monotonic() - started:.0f} s")
    why = gain_unknown(rows, name)
    print(f"{name}: " + (why if why else "keeps its number (fix/record.gain_unknown: its record holds)"))


if __name__ == "__main__":
    main()
