"""A 10 Gb/s link in front of a pool throttled to 50 MB/s: the verdict must name the pool."""
import pytest

from tengig.bench.suite import BenchRunRequest, run_and_record
from tengig.lab import Lab, build_spec
from tengig.lab.bench_adapter import LabBenchSystem
from tengig.results.store import ResultStore

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def slow_pool_lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=10g"], slow_pool_mbps=50))
    yield lab
    lab.down()


def test_slow_pool_behind_a_fast_link_is_the_bottleneck(slow_pool_lab, tmp_path):
    _, report = run_and_record(
        LabBenchSystem(slow_pool_lab), BenchRunRequest(kind="all", clients=["desk"], repeats=1, net_seconds=2),
        ResultStore(tmp_path / "r.sqlite3"))
    pool_read = report.pool.phase("seq1m-q8t1", "read").bytes_per_s.median
    assert pool_read / 1e6 == pytest.approx(50, rel=0.15)  # the blkio throttle, measured through ZFS
    read = next(d for d in report.verdict.directions if d.direction == "read")
    assert read.bottleneck == "pool" and read.beats_target is False
    assert read.smb_bytes_per_s < 1.1 * pool_read
    assert any(a.rule == "pool-below-network" for a in report.verdict.advice)
