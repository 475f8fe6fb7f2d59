"""What the lab asks of tengig on nas for each kind of run (tengig bench KIND --system lab): every kind whose
desktops copy through a share gets the lab's share (a small-files run without one was refused on nas)."""
import pytest
from types import SimpleNamespace

from tengig.api.models.bench import TenGigBenchRunRequest
from tengig.bench.run.record import _check_clients
from tengig.bench.run.suite import SHARE_KINDS, BenchRunRequest
from tengig.lab.nas_run import LabNas
from tengig.lab.plan import SHARE_NAME



def _lab_nas() -> LabNas:
    nas = object.__new__(LabNas)  # its facts, without a lab up
    nas.nas, nas.default_clients = "nas", ["desk"]
    return nas


@pytest.mark.parametrize("kind", ["pool", "net", "smb", "smallfiles", "all"])
def test_each_kind_that_copies_gets_the_share_and_the_others_none(kind):
    nas = _lab_nas()
    req = BenchRunRequest(kind=kind)
    request = TenGigBenchRunRequest.model_validate(nas.nas_request(req, nas.clients(req))).model_dump()
    assert request["system"] == "local" and request["join"] == (0 if kind == "pool" else 1)
    assert request.get("share") == (SHARE_NAME if kind in SHARE_KINDS else None), request
    # and nas, a system that takes joins, accepts it as it is (a small-files run without a share was refused)
    on_nas = BenchRunRequest(**{k: v for k, v in request.items() if k not in ("system", "pool")})
    _check_clients(SimpleNamespace(name="local", accepts_joins=True), on_nas)
