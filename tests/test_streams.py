"""scripts/test.sh's streams (tests/conftest.py --stream): every test runs in exactly one of lab-1, lab-2 and
rest, the second lab's module list names real lab modules, and the script refuses a bad setting."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import SECOND_LAB_MODULES, in_stream, pytest_xdist_make_scheduler, realmw_first

ROOT = Path(__file__).resolve().parent.parent


class Item:
    def __init__(self, nodeid: str, lab: bool):
        self.nodeid, self.lab = nodeid, lab

    def get_closest_marker(self, name):
        return object() if name == "lab" and self.lab else None


@pytest.mark.parametrize("module", sorted(SECOND_LAB_MODULES))
def test_each_second_lab_module_is_a_lab_module_here(module):
    text = (ROOT / module).read_text()
    assert "pytest.mark.lab" in text, f"{module} is listed for the second lab but is not marked lab"


@pytest.mark.parametrize("item", [Item("tests/lab/test_mesh_lab.py::test_x", True),
                                  Item("tests/fix/test_dataset_fix_lab.py::test_y", True),
                                  Item("tests/mesh/test_plan.py::test_z", False)], ids=lambda i: i.nodeid)
def test_every_test_runs_in_exactly_one_of_the_three_streams(item):
    assert sum(in_stream(item, s) for s in ("lab-1", "lab-2", "rest")) == 1
    assert in_stream(item, "all") and in_stream(item, "lab") == item.lab


def test_the_second_lab_takes_its_modules_and_only_lab_tests():
    assert in_stream(Item("tests/lab/test_mesh_lab.py::test_x", True), "lab-2")
    assert in_stream(Item("tests/fix/test_dataset_fix_lab.py::test_y", True), "lab-1")
    assert not in_stream(Item("tests/lab/test_mesh_lab.py::test_x", False), "lab-2")


class Config:
    """What the rest's scheduler reads of pytest's config: the stream, and xdist's workers (-n 2 as --tx)."""
    def __init__(self, stream: str):
        self.stream = stream

    def getoption(self, name, default=None):
        return {"--stream": self.stream, "tx": ["2*popen"]}.get(name, default)

    def getvalue(self, name):
        return self.getoption(name)


def test_the_rest_on_workers_keeps_a_module_together_and_every_real_middlewared_module_on_one_worker():
    from xdist.remote import Producer

    scheduler = pytest_xdist_make_scheduler(Config("rest"), Producer("test", enabled=False))
    assert scheduler.numnodes == 2
    units = {n: scheduler._split_scope(n) for n in (
        "tests/realmw/test_installer.py::test_a", "tests/realmw/test_panel_in_middlewared.py::test_b[25.10.6]",
        "tests/mesh/test_planner.py::test_c", "tests/mesh/test_planner.py::test_d", "tests/cli/test_e.py::test_f")}
    assert len(set(units.values())) == 3
    realmw = {units["tests/realmw/test_installer.py::test_a"],
              units["tests/realmw/test_panel_in_middlewared.py::test_b[25.10.6]"]}
    assert len(realmw) == 1
    assert units["tests/mesh/test_planner.py::test_c"] == units["tests/mesh/test_planner.py::test_d"]
    assert pytest_xdist_make_scheduler(Config("lab"), None) is None  # any other run keeps xdist's own


def test_the_real_middlewared_unit_goes_first_and_the_rest_keep_their_order():
    items = [Item(n, False) for n in ("tests/cli/test_a.py::t", "tests/realmw/test_b.py::t", "tests/mesh/test_c.py::t",
                                      "tests/realmw/test_d.py::t")]
    assert [i.nodeid for i in realmw_first(items)] == ["tests/realmw/test_b.py::t", "tests/realmw/test_d.py::t",
                                                      "tests/cli/test_a.py::t", "tests/mesh/test_c.py::t"]


@pytest.mark.parametrize("variable, value, named", [
    ("TENGIG_TEST_LABS", "3", "give 2 (the lab's tests split over two labs; unset: 2) or 1 (one lab)"),
    ("TENGIG_TEST_LABS", "two", "give 2 (the lab's tests split over two labs; unset: 2) or 1 (one lab)"),
    ("TENGIG_TEST_REST_WORKERS", "0", "give a number of workers from 1 to 99"),
    ("TENGIG_TEST_REST_WORKERS", "-n 4", "give a number of workers from 1 to 99"),
])
def test_the_test_script_refuses_a_bad_setting_naming_it_before_it_starts_anything(tmp_path, variable, value, named):
    """scripts/test.sh run from a copy (a checkout with no .venv: had the check let the value through, nothing
    there could run the suite): exit 2, the variable and what to give, and no test-output made."""
    (tmp_path / "scripts").mkdir()
    for name in ("test.sh", "node_env.sh"):
        shutil.copy(ROOT / "scripts" / name, tmp_path / "scripts" / name)
    done = subprocess.run(["bash", str(tmp_path / "scripts" / "test.sh")], capture_output=True, text=True, timeout=60,
                          env={**os.environ, variable: value})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"{variable}={value}: {named}"), done.stderr
    assert not (tmp_path / "test-output").exists()
