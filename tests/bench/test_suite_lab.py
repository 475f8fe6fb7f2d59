"""The quick suite on the lab's shaped links, against raw tools in the same run (issue 3's must-shows)."""
import re

import pytest

from tengig.bench.suite import BenchRunRequest, run_and_record
from tengig.lab.bench_adapter import LabBenchSystem
from tengig.results.store import ResultStore
from tengig.units import MiB

pytestmark = pytest.mark.lab
RAW_GET = re.compile(r"getting file .* of size (\d+) as /dev/null \(([\d.]+) KiloBytes/sec\)")


def _raw_smbclient_read_bytes_per_s(lab, name: str, size: int) -> float:
    """Raw smbclient, no tengig code in the measurement: write a file, drop caches, read it back (x3)."""
    src = lab.paths.run / "bench" / "raw.dat"
    src.parent.mkdir(parents=True, exist_ok=True)
    with open(src, "wb") as fh:
        fh.write(__import__("os").urandom(size))
    try:
        lab.smbclient("desk", f"put {src} {name}", timeout=120)
        rates = []
        for _ in range(3):  # median of 3, as tengig's own number is a median: one raw dip is not the truth
            lab.runner.run(["sync"], timeout=60)
            lab.runner.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], timeout=60)
            done = lab.smbclient("desk", f"get {name} /dev/null", timeout=120)
            out = done.stdout + done.stderr
            m = RAW_GET.search(out)
            assert m and int(m.group(1)) == size, out
            rates.append(float(m.group(2)) * 1024)
    finally:
        lab.smbclient("desk", f"del {name}", timeout=60)
        src.unlink()
    return sorted(rates)[1]


def test_one_gigabit_desk_loses_to_the_15k_hdd_because_of_the_link(shaped_lab, tmp_path):
    store = ResultStore(tmp_path / "r.sqlite3")
    seen = []
    run_id, report = run_and_record(
        LabBenchSystem(shaped_lab), BenchRunRequest(kind="all", clients=["desk"], repeats=2, net_seconds=2),
        store, progress=lambda p, d: seen.append(p))
    raw = _raw_smbclient_read_bytes_per_s(shaped_lab, "raw-compare.dat", 256 * MiB)

    desk = report.clients[0]
    smb_read = desk.smb.read.bytes_per_s.median
    assert smb_read / MiB == pytest.approx(110, rel=0.05)  # ~110 MiB/s: line rate of 1 Gb/s
    assert smb_read == pytest.approx(raw, rel=0.05), f"tengig {smb_read / MiB:.1f} vs raw {raw / MiB:.1f} MiB/s"
    assert all(w >= 256 * MiB for w in desk.smb.read.wire_bytes)  # the bytes crossed desk's port

    v = report.verdict
    read = next(d for d in v.directions if d.direction == "read")
    assert read.target_bytes_per_s == 223.4e6 and read.beats_target is False and read.bottleneck == "link"
    assert any(a.rule == "link-below-target" and "1 Gb/s link" in a.text for a in v.advice)
    assert "bottleneck: the link" in v.summary

    pool_read = report.pool.phase("seq1m-q8t1", "read")
    assert pool_read.arc_hit_ratio is not None and pool_read.arc_hit_ratio < 0.10  # from the disks, not RAM
    assert report.pool.compressratio <= 1.02
    assert seen == sorted(seen) and seen[-1] == 100  # progress only moves forward

    rec = store.get(run_id)
    assert rec.status == "success" and rec.verdict["summary"] == v.summary
    tools = {r.tool for r in rec.raw}
    assert {"fio", "iperf3", "smbclient", "zfs"} <= tools
    assert rec.environment.arc_size_bytes == 100 * MiB
    left = shaped_lab.runner.run(["zfs", "list", "-H", "-o", "name"], timeout=30).stdout
    assert "tengig-scratch" not in left


def test_hundred_megabit_link_is_the_bottleneck_at_its_ceiling(shaped_lab, tmp_path):
    _, report = run_and_record(LabBenchSystem(shaped_lab),
                               BenchRunRequest(kind="net", clients=["lab"], net_seconds=2),
                               ResultStore(tmp_path / "r.sqlite3"))
    for d in report.verdict.directions:
        link = next(c for c in d.ceilings if c.component == "link")
        assert d.bottleneck == "link"
        assert link.provenance == "estimated" and link.bytes_per_s / 1e6 == pytest.approx(11.77, abs=0.005)
        net = next(c for c in d.ceilings if c.component == "network")
        assert net.bytes_per_s == pytest.approx(link.bytes_per_s, rel=0.03)
