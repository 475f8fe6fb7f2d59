"""The n x (n-1) matrix of a mesh verify with its peers joined (mesh/joined.matrix_plan): every cable whose
ends are the NAS or joined peers is measured (two rows each), the rest listed with why."""
from tengig.mesh import plan_mesh
from tengig.mesh.joined import matrix_plan
from tengig.mesh.peer_cable import serving_end

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


def test_a_windows_peer_connects_to_the_other_desktops_server_and_two_windows_ends_are_not_measured():
    """The kit only connects (a server on Windows would need a Windows Firewall rule): a cable with one Windows
    end is measured with the other end serving, whichever end sorts first; one with two is listed with why."""
    plan = plan_mesh(lab_hosts())
    for windows, other in (("desk", "lab"), ("lab", "desk")):
        via_nas, between, unmeasured = matrix_plan(plan, "nas", {windows: "windows", other: "linux"})
        assert len(via_nas) == 2 and unmeasured == [] and len(between) == 1
        server, client = serving_end(between[0], {windows: "windows", other: "linux"})
        assert (server.host, client.host) == (other, windows)
    via_nas, between, unmeasured = matrix_plan(plan, "nas", {"desk": "windows", "lab": "windows"})
    assert len(via_nas) == 2 and between == []
    assert len(unmeasured) == 1 and "both joined from Windows" in unmeasured[0] and "Firewall" in unmeasured[0]
    linux = between_of(plan)
    assert serving_end(linux, {"desk": "linux", "lab": "macos"}) == (linux.a, linux.b)  # a serves, as before


def between_of(plan):
    [cable] = [c for c in plan.cables if "nas" not in (c.a.host, c.b.host)]
    return cable
