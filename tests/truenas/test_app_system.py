"""tengig as TrueNAS SCALE's app (systems/app.py, systems/app_storage.py): its NAS is what TrueNAS's API
says, the pools from pool.query and the scratch datasets through pool.dataset.*; each thing the container
cannot see, and each refusal by TrueNAS, is said with what to change, and nothing is left on the pool.
The TrueNAS is the stand-in (in memory, loopback); the image itself is run in tests/lab/test_app_image_lab.py."""
from __future__ import annotations

import shutil

import pytest

from tengig.backends.truenas import TrueNASBackend, TrueNASScratch
from tengig.backends.truenas.connection import KEY_FILE_ENV, URL_ENV
from tengig.client import connect
from tengig.errors import ValidationError
from tengig.systems import bench_system, describe_systems, machine_facts
from tengig.systems.app import APP_ENV
from tengig.systems.app_storage import AppScratch


@pytest.fixture
def app(standin, tmp_path, monkeypatch):
    """A stand-in TrueNAS 25.10 and the environment the app's compose file gives tengig."""
    nas = standin("25.10")
    key_file = tmp_path / "truenas-api-key"
    key_file.write_text(nas.nas.api_key + "\n")
    monkeypatch.setenv(APP_ENV, "truenas-scale")
    monkeypatch.setenv(URL_ENV, nas.base)
    monkeypatch.setenv(KEY_FILE_ENV, str(key_file))
    nas.key_file = key_file
    return nas


def _datasets(nas) -> list[str]:
    return nas.state(lambda: sorted(nas.nas.state.storage.datasets))


def _scratch(nas, mountpoints: dict[str, str]) -> AppScratch:
    return AppScratch(TrueNASScratch(TrueNASBackend(connect(nas.base, nas.nas.api_key))), mountpoints)


def test_the_app_finds_its_pools_through_the_api_and_says_so(app):
    facts = machine_facts()
    assert facts.flavour == "truenas-app" and facts.pools == ("tank",)
    assert facts.mountpoints == {"tank": "/mnt/tank"}
    local, truenas, _ = describe_systems()
    assert local["usable"] is True
    assert "pool.query" in local["reason"] and "TENGIG_APP" in local["reason"] and "pools: tank" in local["reason"]
    assert "measured as system local, through its API" in truenas["reason"]
    system = bench_system("local", "tank")
    assert type(system.storage(None)) is AppScratch


def test_a_key_truenas_refuses_is_named_with_its_file(app):
    app.key_file.write_text("1-" + "x" * 64 + "\n")
    facts = machine_facts()
    assert facts.pools == () and str(app.key_file) in facts.pools_error and "refused the API key" in facts.pools_error
    with pytest.raises(ValidationError) as refused:
        bench_system("local", None)
    assert str(app.key_file) in refused.value.message


def test_without_the_host_path_mount_nothing_is_made(app):
    scratch = _scratch(app, {"tank": "/nonexistent/tank"})
    with pytest.raises(ValidationError) as missing:
        scratch.space("tank")
    with pytest.raises(ValidationError):
        scratch.create_scratch("tank", "t1")
    assert "does not see /nonexistent/tank" in missing.value.message
    assert "source /mnt, target /mnt, bind.propagation rslave" in missing.value.message
    assert _datasets(app) == ["tank"]


def test_a_mount_that_does_not_propagate_leaves_nothing(app):
    """The pool is seen ('/' stands for it: a mountpoint here), the new dataset is not: removed again."""
    scratch = _scratch(app, {"tank": "/"})
    with pytest.raises(ValidationError) as unseen:
        scratch.create_scratch("tank", "t2")
    assert "tank/tengig-scratch-t2" in unseen.value.message and "rslave" in unseen.value.message
    assert _datasets(app) == ["tank"]


def test_a_key_without_the_roles_is_named_with_its_file_and_the_role(app):
    app.state(lambda: setattr(app.nas.state, "granted_roles", {"READONLY_ADMIN", "DATASET_READ", "POOL_READ"}))
    scratch = _scratch(app, {"tank": "/"})
    with pytest.raises(ValidationError) as refused:
        scratch.create_scratch("tank", "t3")
    assert refused.value.errors[0][0] == KEY_FILE_ENV
    assert str(app.key_file) in refused.value.message and "FULL_ADMIN" in refused.value.message
    assert "pool.dataset.create" in refused.value.message
    assert _datasets(app) == ["tank"]


def test_a_dataset_the_pool_cannot_make_is_said_with_what_to_change(app):
    scratch = _scratch(app, {"tank": "/"})
    with pytest.raises(ValidationError) as refused:
        scratch.create_scratch_under("tank/nosuch", "t4")
    assert refused.value.errors[0][0] == "pool"
    assert "could not make the share's scratch dataset under tank/nosuch" in refused.value.message
    assert "Parent dataset tank/nosuch does not exist" in refused.value.message
    assert _datasets(app) == ["tank"]


def test_what_the_app_cannot_see_of_smbd_is_named_not_blank():
    from tengig.bench.join.joined import smb_unknowns
    from tengig.backends.linux.cgroup_cpu import CpuCgroup

    without_pid_host = smb_unknowns(None, None, None)
    assert any("smbd's CPU" in u and "pid: host" in u for u in without_pid_host)
    assert any("SMB session" in u for u in without_pid_host)
    assert smb_unknowns(812, None, object()) == ["smbd's CPU limit: the CPU cgroup of smbd (pid 812) is not readable here"]
    assert smb_unknowns(812, CpuCgroup.model_construct(), object()) == []


class HostWithoutKstat:
    """The app's container where the host's ARC statistics are not to be seen (a runtime that masks
    /proc/spl, or zfs-fuse's kstat not mounted in): `cat` of OpenZFS's arcstats and `grep` of zfs-fuse's
    files fail as they would; sync and the cache drop answer without touching this machine; fio and rm run
    for real in the scratch directory."""

    def __init__(self):
        from tengig.runner import Runner

        self.argv, self.real = [], Runner()

    def run(self, argv, *, timeout, check=True, **options):
        from tengig.runner import Completed

        argv = list(argv)
        self.argv.append(argv)
        if argv[0] in ("cat", "grep"):
            return Completed(tuple(argv), 1 if argv[0] == "cat" else 2, "",
                             f"{argv[0]}: {argv[-1]}: No such file or directory", 0.0)
        if argv[0] in ("sync", "sysctl"):
            return Completed(tuple(argv), 0, "", "", 0.0)
        assert argv[0] in ("fio", "rm"), f"not a program this test expected: {argv}"
        return self.real.run(argv, timeout=timeout, check=check, **options)


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed (make setup installs it)")
def test_an_arc_the_app_cannot_read_is_a_named_unknown_in_the_pool_result(tmp_path):
    """No ARC statistics in the container: the pool is still measured (its reads kept out of the ARC by
    primarycache=metadata, which needs no ARC size), and the result names what it did not read and where it
    looked, in its unknowns and the text report: no ARC size, no hit ratio, never a zero."""
    from tengig.bench.context import BenchContext
    from tengig.bench.phases.pool import PoolBenchRequest, run_pool_bench
    from tengig.bench.run.report_text import report_text
    from tengig.bench.run.suite import BenchReport
    from tengig.systems.local import LocalFacts
    from tengig.systems.local_bench import LocalBenchSystem
    from tengig.units import MiB

    from ..backends.test_freebsd_machine import DirectoryScratch

    machine = HostWithoutKstat()
    system = LocalBenchSystem(LocalFacts(flavour="truenas-app", reason="the app, its container", pools=("tank",)),
                              "tank", runner=machine)
    storage = DirectoryScratch(tmp_path)
    result = run_pool_bench(BenchContext(system.hosts), storage, system.nas,
                            PoolBenchRequest(pool="tank", preset="quick", repeats=1, working_set=64 * MiB),
                            host_os=system.os)
    assert result.cache_policy.uncached and (result.arc_max_bytes, result.arc_source) == (None, None)
    reads = [p for p in result.phases if p.direction == "read"]
    assert len(reads) == 2 and all((p.arc_hits, p.arc_misses, p.arc_hit_ratio) == (None, None, None) for p in reads)
    [unknown] = result.unknowns
    assert unknown.startswith("the ARC's size and its hits during the reads")
    assert "/proc/spl/kstat/zfs/arcstats" in unknown
    assert "primarycache=metadata" in unknown
    text = report_text(BenchReport(system="local", kind="pool", preset="quick", target="none", pool=result, clients=[]))
    assert "ARC max unknown" in text and f"  unknown: {unknown}" in text
    assert not any(p.exists() for p in storage.made)


def test_an_arc_of_unknown_size_is_refused_where_files_must_outgrow_it(tmp_path):
    """Without primarycache (TrueNAS 26.0 has no API for it) the files must be 2 x the ARC: of an ARC whose
    size cannot be read, they cannot be sized, and the run stops before writing anything, saying what to do."""
    from tengig.bench.context import BenchContext
    from tengig.bench.phases.pool import PoolBenchRequest, run_pool_bench
    from tengig.errors import BenchRefused, TengigError
    from tengig.systems.local import LocalFacts
    from tengig.systems.local_bench import LocalBenchSystem

    from ..backends.test_freebsd_machine import DirectoryScratch

    class NoPrimarycache(DirectoryScratch):
        def set_primarycache(self, dataset, value):
            raise TengigError("zfs.dataset.update: no such method")

    machine = HostWithoutKstat()
    system = LocalBenchSystem(LocalFacts(flavour="truenas-app", reason="the app, its container", pools=("tank",)),
                              "tank", runner=machine)
    storage = NoPrimarycache(tmp_path)
    with pytest.raises(BenchRefused) as refused:
        run_pool_bench(BenchContext(system.hosts), storage, system.nas, PoolBenchRequest(pool="tank"),
                       host_os=system.os)
    assert "the ARC's size is needed and cannot be read here" in refused.value.message
    assert "/proc/spl/kstat/zfs/arcstats" in refused.value.message and "primarycache" in refused.value.message
    assert not any(a[0] == "fio" for a in machine.argv) and not any(p.exists() for p in storage.made)


def test_the_shares_scratch_dataset_inherits_what_it_does_not_set(app):
    """pool.dataset.create without compression, recordsize, atime or sync leaves them to the parent, as TrueNAS
    25.10's model does (compression defaults to INHERIT, the others are not required): the share's scratch
    dataset is made so, and what it reports is the parent's."""
    scratch = TrueNASScratch(TrueNASBackend(connect(app.base, app.nas.api_key)))
    parent = app.state(lambda: app.nas.state.storage.datasets["tank"])
    info = scratch.create_scratch_under("tank", "t5", inherit=True)
    made = app.state(lambda: app.nas.state.storage.datasets[info.name])
    for prop in ("compression", "recordsize", "atime", "sync"):
        assert made[prop]["source"] == "INHERITED" and made[prop]["value"] == parent[prop]["value"], prop
    assert info.compression == parent["compression"]["value"].lower()
    own = scratch.create_scratch_under("tank", "t6")  # without inherit: its own cheap values, set
    assert app.state(lambda: app.nas.state.storage.datasets[own.name])["compression"]["source"] == "LOCAL"
