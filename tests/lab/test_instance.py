"""The second lab beside the first (tengig/lab/instance.py, tests/second_lab.sh): what tells the two apart on
one machine, and the refusal to build a second lab where it would take the first's names."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tengig.errors import LabError
from tengig.lab import Lab, residue
from tengig.lab.instance import INSTANCE_ENV, OWN_MOUNTS, cgroup_name, instance, require_own_mounts, suffix
from tengig.lab.paths import LabPaths


def test_the_first_lab_keeps_its_names(monkeypatch):
    monkeypatch.delenv(INSTANCE_ENV, raising=False)
    monkeypatch.delenv("TENGIG_LAB_RUN", raising=False)
    monkeypatch.delenv("TENGIG_LAB_DATA", raising=False)
    assert (instance(), suffix(), cgroup_name()) == ("1", "", "tengig-lab")
    paths = LabPaths()
    assert (str(paths.run), str(paths.data)) == ("/run/tengig/lab", "/var/lib/tengig/lab")


def test_the_second_lab_has_its_own_directories_and_cgroup(monkeypatch):
    monkeypatch.setenv(INSTANCE_ENV, "2")
    monkeypatch.delenv("TENGIG_LAB_RUN", raising=False)
    monkeypatch.delenv("TENGIG_LAB_DATA", raising=False)
    assert (suffix(), cgroup_name()) == ("-2", "tengig-lab-2")
    paths = LabPaths()
    assert (str(paths.run), str(paths.data)) == ("/run/tengig/lab-2", "/var/lib/tengig/lab-2")


@pytest.mark.parametrize("value", ["0", "10", "two", " 2", "2;rm"])
def test_a_bad_instance_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(INSTANCE_ENV, value)
    with pytest.raises(LabError, match=f"{INSTANCE_ENV}=.*one digit, 1 to 9.*unset it"):
        instance()


def test_a_second_lab_in_the_machines_own_mounts_is_refused_before_anything_is_touched(monkeypatch):
    monkeypatch.setenv(INSTANCE_ENV, "2")
    with pytest.raises(LabError, match="needs its own mount namespace.*/run/zfs.*tests/second_lab.sh"):
        Lab()


def test_own_mounts_means_each_directory_is_a_fresh_tmpfs(monkeypatch, tmp_path):
    monkeypatch.setenv(INSTANCE_ENV, "2")
    mounts = tmp_path / "mounts"
    lines = [f"tengig-lab-2 {d} tmpfs rw 0 0" for d in OWN_MOUNTS]
    mounts.write_text("\n".join(lines) + "\n")
    require_own_mounts(str(mounts))  # all there: no error
    mounts.write_text("\n".join(lines[:-1]) + f"\n/dev/vda {OWN_MOUNTS[-1]} ext4 rw 0 0\n")
    with pytest.raises(LabError, match=f"fresh {OWN_MOUNTS[-1]}:"):
        require_own_mounts(str(mounts))


def test_each_lab_finds_only_its_own_marked_processes(monkeypatch):
    """A lab's down sweeps the processes carrying its marker: a second lab's, beside it, are not its own."""
    procs = {n: subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 env={**os.environ, "TENGIG_LAB": n}) for n in ("1", "2")}
    try:
        time.sleep(0.2)
        for n, proc in procs.items():
            monkeypatch.setenv(INSTANCE_ENV, n)
            found = set(residue.marked_processes())
            other = procs["2" if n == "1" else "1"]
            assert proc.pid in found and other.pid not in found
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()
