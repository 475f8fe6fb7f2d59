"""tengig as TrueNAS SCALE's app (systems/app.py, systems/app_storage.py): its NAS is what TrueNAS's API
says, the pools from pool.query and the scratch datasets through pool.dataset.*; each thing the container
cannot see, and each refusal by TrueNAS, is said with what to change, and nothing is left on the pool.
The TrueNAS is the stand-in (in memory, loopback); the image itself is run in tests/lab/test_app_image_lab.py."""
from __future__ import annotations

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
    from tengig.bench.phases.smbd_cpu_limit import CpuCgroup

    without_pid_host = smb_unknowns(None, None, None)
    assert any("smbd's CPU" in u and "pid: host" in u for u in without_pid_host)
    assert any("SMB session" in u for u in without_pid_host)
    assert smb_unknowns(812, None, object()) == ["smbd's CPU limit: the CPU cgroup of smbd (pid 812) is not readable here"]
    assert smb_unknowns(812, CpuCgroup.model_construct(), object()) == []
