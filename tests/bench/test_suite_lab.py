"""The lab path (LabBenchSystem: the lab's own setup drives each host) on a 100 Mb/s link. The 1 Gb/s
verdict against raw smbclient in the same run is measured on the NAS's own path: test_joined_lab.py."""
import pytest

from tengig.bench.suite import BenchRunRequest, run_and_record
from tengig.lab.bench_adapter import LabBenchSystem
from tengig.results.store import ResultStore

pytestmark = pytest.mark.lab


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
