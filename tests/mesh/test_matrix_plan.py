"""The n x (n-1) matrix of a mesh verify with its peers joined (mesh/joined.matrix_plan): every cable whose
ends are the NAS or joined peers is measured (two rows each), the rest listed with why."""
from tengig.mesh import plan_mesh
from tengig.mesh.joined import matrix_plan

from .layouts import lab_hosts, port


def _four() -> dict:
    names = ("nas", "desk", "lab", "mini")
    return {"hosts": [{"name": h, "kind": "linux", "ports": [port(f"eth-{p}", peer=p) for p in names if p != h]}
                      for h in names]}


def test_every_ordered_pair_is_measured_when_every_peer_joined():
    for request, n in ((lab_hosts(), 3), (_four(), 4)):
        plan = plan_mesh(request)
        peers = {h.name: "linux" for h in plan.hosts if h.name != "nas"}
        via_nas, between, unmeasured = matrix_plan(plan, "nas", peers)
        assert unmeasured == []
        assert 2 * (len(via_nas) + len(between)) == n * (n - 1)
        assert all("nas" in (c.a.host, c.b.host) for c in via_nas) and len(via_nas) == n - 1
        assert all("nas" not in (c.a.host, c.b.host) for c in between)


def test_a_peer_that_did_not_join_leaves_its_cables_unmeasured_with_why():
    plan = plan_mesh(_four())
    via_nas, between, unmeasured = matrix_plan(plan, "nas", {"desk": "linux", "lab": "linux"})
    assert {frozenset((c.a.host, c.b.host)) for c in via_nas} == {frozenset(("nas", "desk")), frozenset(("nas", "lab"))}
    assert [(c.a.host, c.b.host) for c in between] == [("desk", "lab")]
    assert len(unmeasured) == 3 and all("mini did not join" in u for u in unmeasured)


def test_a_windows_kit_peer_leaves_its_peer_cables_unmeasured():
    plan = plan_mesh(lab_hosts())
    via_nas, between, unmeasured = matrix_plan(plan, "nas", {"desk": "windows", "lab": "linux"})
    assert len(via_nas) == 2 and between == []
    assert len(unmeasured) == 1 and "desk joined from Windows" in unmeasured[0]
