"""ARC benchmark (not a test): does tengig's bounded, uncached working set read like a cold pool?

On the lab with an ARC of 1 GiB, in interleaved rounds, the same sequential read (fio SEQ1M Q8T1, the
pool test's argv) of:
  - bounded: a 512 MiB file (half the ARC) written the way tengig writes it (bench/phases/cache_policy.py:
    primarycache=metadata), read with primarycache=all;
  - cold: a 2.5 GiB file (more than 2 x the ARC) written and read on a dataset with the default
    primarycache=all, the rule tengig used before and still falls back to.
Prints both medians, their ratio (goal: within 5%), the ARC hit ratio of each, and the bytes each wrote.

Usage: .venv/bin/python scripts/bench_arc.py [--rounds 9]   (takes the lab down at the end)"""
from __future__ import annotations

import argparse
import statistics
import time

from tengig.backends.linux.zfs import ZfsCli
from tengig.bench.phases.arc import ArcDelta, delta, read_arc
from tengig.bench.phases.cache_policy import keep_arc_out, reading
from tengig.bench.context import BenchContext
from tengig.bench.parse.fio_parse import parse_fio_json, require_io
from tengig.bench.phases.pool import fio_argv
from tengig.bench.phases.pool_presets import PRESETS, SEQ1M_Q8T1
from tengig.lab import Lab, build_spec
from tengig.lab.hosts import LabHosts
from tengig.lab.plan import POOL_NAME
from tengig.systems.host_os import LinuxHost
from tengig.units import GiB, MiB

ARC_MIB = 1024
BOUNDED = 512 * MiB
COLD = 2 * GiB + 512 * MiB


def fio(ctx, nas, direction, path, size):
    done = ctx.run(nas, fio_argv(SEQ1M_Q8T1, direction, path, size, PRESETS["quick"], "libaio"), timeout=600,
                   tool="fio")
    return require_io(parse_fio_json(done.stdout)[0], direction)


def one(ctx, storage, nas, policy, path, size):
    ctx.run(nas, ["rm", "-f", path], timeout=60)
    wrote = fio(ctx, nas, "write", path, size)
    LinuxHost().drop_caches(ctx, nas)  # the lab's nas is Linux
    before = read_arc(ctx, nas)
    with reading(storage, policy, sequential=True):
        io = fio(ctx, nas, "read", path, size)
    if io.bytes != size:
        raise SystemExit(f"fio read {io.bytes} bytes of {size}")
    return io.bytes_per_s, delta(before, read_arc(ctx, nas)), wrote.bytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9)  # zfs-fuse on 2 cores: +-25% per read
    ap.add_argument("--bounded-mib", type=int, default=BOUNDED // MiB)
    args = ap.parse_args()
    bounded = args.bounded_mib * MiB
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=10g"], arc_mib=ARC_MIB))
    try:
        ctx = BenchContext(LabHosts(lab))
        nas = lab.require_up().spec.nas
        storage = ZfsCli(ctx, nas)
        pool = POOL_NAME
        tag = str(int(time.time()))
        bounded_ds = storage.create_scratch(pool, f"{tag}-bounded")
        cold_ds = storage.create_scratch(pool, f"{tag}-cold")
        try:
            policy = keep_arc_out(storage, bounded_ds.name)
            if not policy.uncached:
                raise SystemExit(f"uncached writes unavailable: {policy.note}")
            cold_policy = policy.model_copy(update={"method": "larger-than-arc", "dataset": None})
            runs = {"bounded": [], "cold": []}
            arcs = {"bounded": ArcDelta(hits=0, misses=0), "cold": ArcDelta(hits=0, misses=0)}
            written = {"bounded": 0, "cold": 0}
            for r in range(args.rounds):
                for name, ds, pol, size in (("bounded", bounded_ds, policy, bounded),
                                            ("cold", cold_ds, cold_policy, COLD)):
                    speed, arc, wrote = one(ctx, storage, nas, pol, f"{ds.mountpoint}/f.dat", size)
                    runs[name].append(speed)
                    arcs[name] = arcs[name] + arc
                    written[name] += wrote
                    print(f"round {r + 1} {name:7} {speed / 1e6:7.1f} MB/s, ARC hits {arc.hits} misses {arc.misses}",
                          flush=True)
            med = {k: statistics.median(v) for k, v in runs.items()}
            print(f"ARC {ARC_MIB} MiB. bounded {bounded // MiB} MiB uncached: median {med['bounded'] / 1e6:.1f} MB/s, "
                  f"ARC hit ratio {arcs['bounded'].hit_ratio:.4f}, {written['bounded'] / args.rounds / MiB:.0f} MiB "
                  f"written per read")
            print(f"cold {COLD // MiB} MiB (> 2 x ARC): median {med['cold'] / 1e6:.1f} MB/s, ARC hit ratio "
                  f"{arcs['cold'].hit_ratio:.4f}, {written['cold'] / args.rounds / MiB:.0f} MiB written per read")
            print(f"bounded / cold = {med['bounded'] / med['cold']:.3f} (goal: within 0.95-1.05)")
        finally:
            storage.destroy(bounded_ds.name)
            storage.destroy(cold_ds.name)
    finally:
        lab.down()


if __name__ == "__main__":
    main()
