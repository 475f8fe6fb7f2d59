"""scripts/test.sh's streams (tests/conftest.py --stream): every test runs in exactly one of lab-1, lab-2 and
rest, and the second lab's module list names real lab modules."""
from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import SECOND_LAB_MODULES, in_stream

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
