"""Shared fixtures. Lab tests need root and the lab's tools (make setup installs them); they use
the one lab a machine can have (zfs-fuse is one daemon), so they clean up any earlier lab first."""
from __future__ import annotations

import os

import pytest

from tengig.lab import Lab, build_spec
from tengig.lab import residue

# One lab for the module-scoped tests: both shaped speeds the ceilings are asserted on.
SHAPED_LINKS = ["desk-nas=1g", "lab-nas=100m", "desk-lab=10g"]


def _require_root():
    if os.geteuid() != 0:
        pytest.fail("lab tests need root (run `make test` as root)")


@pytest.fixture
def clean_machine():
    """No lab before the test, and none after it (the test fails if it leaves residue)."""
    _require_root()
    lab = Lab()
    lab.down()
    yield lab
    left = residue.scan(lab.runner, lab.paths)
    lab.down()
    assert left.empty(), f"test left residue behind: {left.describe()}"


@pytest.fixture(scope="module")
def shaped_lab():
    _require_root()
    lab = Lab()
    lab.down()
    lab.up(build_spec(SHAPED_LINKS))
    yield lab
    lab.down()
