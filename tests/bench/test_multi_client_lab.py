"""Two clients at once over their own 1 Gb/s links (fio client/server over smbnetfs mounts)."""
import pytest

from tengig.bench.suite import BenchRunRequest, run_and_record
from tengig.lab import Lab, build_spec
from tengig.lab.bench_adapter import LabBenchSystem
from tengig.results.store import ResultStore

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def two_links_lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g", "lab-nas=1g"]))
    yield lab
    lab.down()


def test_two_clients_at_once_exceed_one_link(two_links_lab, tmp_path):
    _, report = run_and_record(LabBenchSystem(two_links_lab),
                               BenchRunRequest(kind="smb", clients=["desk", "lab"], repeats=1),
                               ResultStore(tmp_path / "r.sqlite3"))
    sc = report.smb_concurrent
    assert sc.clients == ["desk", "lab"]
    one_link = 117.7e6  # TCP goodput of 1 Gb/s, bytes/s
    assert sc.read.aggregate.median > 1.5 * one_link * 0.9, "two links at once should carry far more than one"
    for client in ("desk", "lab"):
        assert sc.read.per_client[client].median < one_link * 1.01  # each bounded by its own link
        assert all(w >= sc.file_size for w in sc.read.wire_bytes[client])  # the bytes crossed its port
    mounts = two_links_lab.runner.run(["grep", "-c", "smbnetfs", "/proc/mounts"], timeout=10, check=False).stdout
    assert mounts.strip() == "0"
    assert not [p for p in two_links_lab.share_path.iterdir() if p.name.startswith("tengig-bench")]
    assert {c.client for c in report.clients} == {"desk", "lab"} and all(c.smb for c in report.clients)
