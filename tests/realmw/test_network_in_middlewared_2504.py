"""The mesh must-show of test_network_in_middlewared.py against TrueNAS 25.04.2.6's own network code:
`midclt call -j tengig.mesh.apply` with system truenas puts the plan's addresses and MTU into nas's kernel
and 25.04's database, desk reaches nas over the new subnet, and a probe that fails leaves 25.04's own
interface.rollback to restore both. The same tests, collected here with this module's 25.04 middlewared
(one for the module, on the lab's nas); the other cases run on 25.10.6 only."""
from __future__ import annotations

import pytest

from .test_network_in_middlewared import (  # noqa: F401 (collected here, in this order, with this module's nas)
    truenas_on_nas,
    test_mesh_apply_through_truenas_puts_the_plan_in_nas_kernel_and_database,
    test_a_probe_that_fails_leaves_truenas_rollback_to_restore_kernel_and_database,
)

pytestmark = [pytest.mark.lab, pytest.mark.realmw]
VERSION = "25.04.2.6"


@pytest.fixture(scope="module")
def nas(bare_lab, tmp_path_factory):
    """The lab's nas as a TrueNAS 25.04."""
    yield from truenas_on_nas(VERSION, bare_lab, tmp_path_factory.mktemp("truenas-network-2504"))
