"""A failed tool never becomes a number: each failure gives a clear error, a 'failed' (or 'aborted') run
with no results, and nothing left behind (no scratch dataset, no test files on the share).

The pool's failures run tengig here as system local (the lab's pool is this machine's pool: no other
host is entered), so a test can hand it a ZFS that answers as another would; the share's run as system
lab (tengig on nas measures, desk joins over its cable), recorded by nas's tengig in the same store."""
import os
import subprocess
import sys
import threading
import time

import pytest

from tengig.backends.linux.zfs import ZfsCli
from tengig.bench.run.record import run_and_record
from tengig.bench.run.report_text import report_text
from tengig.bench.run.suite import BenchRunRequest
from tengig.errors import Aborted, BenchRefused, CommandFailed, ToolOutputError
from tengig.lab import Lab, build_spec
from tengig.lab.nas_run import LabNas
from tengig.lab.plan import POOL_NAME
from tengig.results.store import ResultStore
from tengig.systems.host_os import LinuxHost
from tengig.systems.local import this_machine
from tengig.systems.local_bench import LocalBenchSystem
from tengig.units import MiB

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=10g"]))
    yield lab
    lab.down()


@pytest.fixture
def store(tmp_path):
    return ResultStore(tmp_path / "r.sqlite3")


def _nothing_left(lab):
    datasets = lab.runner.run(["zfs", "list", "-H", "-o", "name"], timeout=30).stdout
    assert "tengig-scratch" not in datasets, datasets
    assert not [p.name for p in lab.share_path.iterdir() if p.name.startswith("tengig-bench")]
    assert not list((lab.paths.run / "bench").glob("tengig-smb-*"))


def _only_failed_row(store, status="failed"):
    [rec] = store.query(include_raw=True)
    assert rec.status == status and rec.results is None and rec.verdict is None and rec.error
    return rec


def _local(storage=None) -> LocalBenchSystem:
    """tengig on this machine as the NAS (system local) measuring the lab's pool; ``storage``: another
    ZFS backend class in its place."""
    system = LocalBenchSystem(this_machine(), POOL_NAME)
    if storage is not None:
        system.storage = lambda ctx: storage(ctx, system.nas)
    return system


def _fail(lab, store, req, system, **kw):
    with pytest.raises(Exception) as err:
        run_and_record(system, req, store, **kw)
    _nothing_left(lab)
    return err.value


def test_full_share_dataset(lab, store):
    lab.runner.run(["zfs", "set", "quota=64M", "tgtank/smb"], timeout=30)
    try:
        err = _fail(lab, store, BenchRunRequest(kind="smb", repeats=1), LabNas(lab))
    finally:
        lab.runner.run(["zfs", "set", "quota=none", "tgtank/smb"], timeout=30)
    assert "NT_STATUS_DISK_FULL" in str(err), err
    _only_failed_row(store)


def test_killed_fio(lab, store):
    def killer():
        """KILL every fio on the pool's first file until none is left: fio forks its job from its main process,
        and a KILL read between the two (a busy machine) would leave the job behind, orphaned and waiting."""
        deadline, killed = time.monotonic() + 60, False
        while time.monotonic() < deadline:
            # this lab's fio only: in this mount namespace (a second lab's, beside it, runs in its own)
            kill = ["pkill", "--ns", str(os.getpid()), "--nslist", "mnt", "-KILL", "-f", "tengig-pool-0.dat"]
            found = lab.runner.run(kill, timeout=10, check=False).returncode == 0
            if killed and not found:
                return
            killed = killed or found
            time.sleep(0.05)

    t = threading.Thread(target=killer)
    t.start()
    err = _fail(lab, store, BenchRunRequest(kind="pool", repeats=1, working_set=128 * MiB), _local())
    t.join()
    assert isinstance(err, ToolOutputError) and "fio" in str(err)
    assert _only_failed_row(store).raw  # what fio left is kept for reading


def test_abort_stops_fio_and_cleans_up(lab, store):
    cancel = threading.Event()

    def progress(percent, description):
        if "run 1/" in description and "read" in description:
            cancel.set()

    err = _fail(lab, store, BenchRunRequest(kind="pool", repeats=1, working_set=128 * MiB), _local(),
                progress=progress, cancel=cancel)
    assert isinstance(err, Aborted)
    _only_failed_row(store, "aborted")


class _NoPrimarycache(ZfsCli):
    """The lab's ZFS, told to answer as one that cannot set primarycache: the 2 x ARC fallback."""

    def set_primarycache(self, dataset, value):
        raise CommandFailed(["zfs", "set", f"primarycache={value}", dataset], 1, "",
                            f"cannot set property for '{dataset}': operation not supported")


def test_the_arc_kept_out_with_bounded_files_and_refusals_before_writing(lab, store, monkeypatch):
    """One lab: an ARC of 1 GiB in front of a 2 GiB pool.
    - Uncached writes keep the reads on the disks though every file (128 MiB, the lab's) fits the ARC.
    - With the fallback and an ARC reported smaller than it is, the files fit the real ARC: the hit counter
      refuses the run.
    - Files the pool cannot hold are refused before anything is written, with either method."""
    lab.down()
    lab.up(build_spec(["desk-nas=10g"], arc_mib=1024, pool_size=2 * 1024 * MiB))
    stores = iter(ResultStore(store.path.parent / f"r{i}.sqlite3") for i in range(2, 9))
    try:
        _, report = run_and_record(_local(), BenchRunRequest(kind="pool", working_set=128 * MiB), store)
        pool = report.pool
        size = pool.working_set_bytes
        assert pool.cache_policy.method == "uncached-writes" and size == 128 * MiB < pool.arc_max_bytes
        reads = [p for p in pool.phases if p.direction == "read"]
        assert reads and all(p.arc_hit_ratio is not None for p in reads)
        seq = next(p for p in reads if p.key == "seq1m-q8t1")
        read = sum(seq.bytes_moved)  # quick's reads stop after 1 s or at what their write wrote
        assert seq.arc_hit_ratio < 0.05 and seq.arc_misses > read // (128 * 1024) * 0.9, seq
        writes = sum(sum(p.bytes_moved) for p in pool.phases if p.direction == "write")
        assert pool.bytes_written > writes >= read  # the sequential files, the random tests' one besides
        _nothing_left(lab)

        s = next(stores)
        err = _fail(lab, s, BenchRunRequest(kind="pool", working_set=512 * MiB), _local())  # 4 x 512 MiB, 2 GiB pool
        assert isinstance(err, BenchRefused) and "past 80%" in str(err) and "512 MiB" in str(err)
        _only_failed_row(s)
        s = next(stores)
        err = _fail(lab, s, BenchRunRequest(kind="pool"), _local(_NoPrimarycache))  # 3 x 2 GiB
        assert isinstance(err, BenchRefused) and "2 x the ARC" in str(err) and "operation not supported" in str(err)
        _only_failed_row(s)

        real = LinuxHost.read_arc  # the NAS's ARC, as the pool bench reads it on Linux
        monkeypatch.setattr(LinuxHost, "read_arc",
                            lambda self, ctx, host: real(self, ctx, host).model_copy(update={"c_max": 4 * MiB}))
        s = next(stores)
        err = _fail(lab, s, BenchRunRequest(kind="pool", repeats=1, working_set=128 * MiB), _local(_NoPrimarycache))
        assert isinstance(err, BenchRefused) and "served from the ARC (hit ratio" in str(err)
        _only_failed_row(s)
    finally:
        lab.down()
        lab.up(build_spec(["desk-nas=10g"]))


def _scratch_mountpoints(lab) -> dict[str, str]:
    listed = lab.runner.run(["zfs", "list", "-H", "-o", "name,mountpoint"], timeout=30).stdout
    return dict(line.split("\t") for line in listed.splitlines() if "tengig-scratch" in line)


def test_a_scratch_dataset_held_busy_keeps_the_run_and_the_next_run_removes_it(lab, store):
    """A person on the NAS with a shell inside the scratch dataset at the end of a run: the figures are kept,
    the report says what was left and why, and the next run removes it first and says so."""
    holders: list[subprocess.Popen] = []

    def hold_it(percent, description):
        if description.endswith(" done") and description.startswith("pool ") and not holders:
            [mountpoint] = _scratch_mountpoints(lab).values()
            holders.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], cwd=mountpoint))

    try:
        _, report = run_and_record(_local(), BenchRunRequest(kind="pool", repeats=1, working_set=128 * MiB), store,
                                   progress=hold_it)
        assert holders, "the run never reported its pool done"
        [left] = _scratch_mountpoints(lab)
        [line] = report.left_behind
        assert line.startswith(f"{left}: ") and "busy" in line and line.endswith("the next run on this pool removes it")
        assert report.pool.phases and all(p.bytes_per_s.median > 0 for p in report.pool.phases)
        [rec] = store.query()
        assert rec.status == "success" and rec.results["left_behind"] == [line] and rec.verdict is None
    finally:
        for holder in holders:
            holder.kill()
            holder.wait()
    s = ResultStore(store.path.parent / "next.sqlite3")
    _, report = run_and_record(_local(), BenchRunRequest(kind="pool", repeats=1, working_set=128 * MiB), s)
    assert report.swept == [left] and report.pool.swept == [left] and report.left_behind == []
    assert f"removed first, left by an earlier run: {left}" in report_text(report)
    _nothing_left(lab)
