"""System 'lab' (tengig on nas measures as system local; the lab desktop joins over its cable) on a
100 Mb/s link: the link is the bottleneck at its ceiling. The 1 Gb/s verdict against raw smbclient in the
same run: test_joined_lab.py."""
import pytest

from tengig.bench.run.record import run_and_record
from tengig.bench.run.suite import BenchRunRequest
from tengig.results.store import ResultStore
from tengig.systems import bench_system

pytestmark = pytest.mark.lab


def test_hundred_megabit_link_is_the_bottleneck_at_its_ceiling(shaped_lab, tmp_path):
    store = ResultStore(tmp_path / "r.sqlite3")
    run_id, report = run_and_record(bench_system("lab"), BenchRunRequest(kind="net", clients=["lab"], net_seconds=2),
                                    store)
    [client] = report.clients
    assert client.client == "lab" and client.joined["os"] == "linux"  # it joined, as a desktop does
    assert client.nas_port.shaper_bps is not None  # the NAS read its own port
    for d in report.verdict.directions:
        link = next(c for c in d.ceilings if c.component == "link")
        assert d.bottleneck == "link"
        assert link.bytes_per_s / 1e6 == pytest.approx(11.77, abs=0.005)
        net = next(c for c in d.ceilings if c.component == "network")
        assert 0 < net.bytes_per_s <= 1.03 * link.bytes_per_s  # the 100 Mb/s cable bounds what iperf3 measured
    [stored] = store.query()  # recorded by tengig on nas, in the caller's store
    assert stored.id == run_id and stored.status == "success"
