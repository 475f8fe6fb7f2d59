"""A mesh plan's TrueNAS calls applied through apply_staged on a stand-in TrueNAS SCALE: a probe that
succeeds keeps the links (and the user's hosts lines); one that fails leaves the NAS as it was."""
import pytest

from tengig.backends.truenas import ProbeResult, ProbeTarget, StagedChangeFailed, TrueNASBackend, apply_staged
from tengig.mesh import plan_mesh
from tengig.mesh.truenas_api import truenas_calls

REQUEST = {"hosts": [
    {"name": "nas", "kind": "truenas-scale", "ports": [{"name": "enp3s0f0", "speed_bps": "10g", "card": "S320E"},
                                                       {"name": "enp3s0f1", "speed_bps": "10g", "card": "S320E"}]},
    {"name": "desk", "kind": "windows", "ports": [{"name": "Ethernet 2", "speed_bps": "10g"},
                                                  {"name": "Ethernet 3", "speed_bps": "10g"}]},
    {"name": "lab", "kind": "linux", "ports": [{"name": "enp4s0f0", "speed_bps": "10g"},
                                               {"name": "enp4s0f1", "speed_bps": "10g"}]},
], "existing_networks": ["192.168.1.0/24"], "options": {"mtu": 9000}}


def _plan_for_nas():
    plan = plan_mesh(REQUEST)
    nas = next(h for h in plan.hosts if h.name == "nas")
    far_ends = {}
    for cable in plan.cables_of("nas"):
        far = cable.far_end_of("nas")
        far_ends[cable.end_of("nas").port] = (cable.id, far.host, far.address)
    # planned without the NAS's current hosts: apply_staged rebases our lines onto what it holds
    return truenas_calls(plan, nas), far_ends


def _probe(far_ends, answering):
    def probe():
        targets = [ProbeTarget(name=f"{cable} {port} -> {host} {address}", ok=host in answering,
                               detail="" if host in answering else "no reply")
                   for port, (cable, host, address) in sorted(far_ends.items())]
        return ProbeResult(ok=all(t.ok for t in targets), targets=targets)
    return probe


def test_mesh_links_applied_and_kept(standin):
    calls, far_ends = _plan_for_nas()
    nas = standin("25.04")
    with nas.client() as client:
        backend = TrueNASBackend(client)
        result = apply_staged(backend, calls, _probe(far_ends, {"desk", "lab"}), checkin_timeout=5)
        assert result.changed and result.staged_calls == 2 and result.hosts_updated
        hosts = backend.hosts()
        again = apply_staged(backend, calls, _probe(far_ends, set()), checkin_timeout=5)
        assert not again.changed  # same plan, second time: nothing to do (the failing probe never ran)
    active = nas.active()
    for call in calls[:-1]:
        port, data = call.params
        assert active[port]["aliases"] == data["aliases"] and active[port]["mtu"] == 9000
    assert hosts[0] == "192.168.1.20 printer" and len(hosts) == 3
    assert all(line.endswith("# tengig-mesh") for line in hosts[1:])


def test_mesh_link_that_does_not_answer_is_rolled_back(standin):
    calls, far_ends = _plan_for_nas()
    nas = standin("25.04")
    before = nas.active()
    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(StagedChangeFailed) as failed:
            apply_staged(backend, calls, _probe(far_ends, {"desk"}), checkin_timeout=2, probe_interval=0.2)
        assert backend.hosts() == ["192.168.1.20 printer"] and not backend.has_pending_changes()
    lab_port = next(port for port, (_, host, _) in far_ends.items() if host == "lab")
    assert f"{lab_port} -> lab" in str(failed.value) and "-> desk" not in str(failed.value)
    assert nas.active() == before


def test_the_apply_job_pings_through_the_run_on_nas_seam_of_its_host(standin, tmp_path, monkeypatch, api_with):
    """tengig.mesh.apply {system: truenas, hosts: [nas]} through an API host built with its own
    run_on_nas seam: the probe's pings (one per cable, out of the NAS's port) go to that seam, which
    answers for the far ends, so the change is kept; no ping runs on this machine."""
    from tengig.api.jobs import JobState
    from tengig.runner import Completed
    from tengig.systems.seams import Seams

    nas = standin("25.04")
    key_file = tmp_path / "key"
    key_file.write_text(nas.nas.api_key)
    monkeypatch.setenv("TENGIG_TRUENAS_URL", nas.base)
    monkeypatch.setenv("TENGIG_TRUENAS_API_KEY_FILE", str(key_file))
    pinged = []

    def run_on_nas(argv):
        pinged.append(list(argv))
        return Completed(tuple(argv), 0, "1 packets transmitted, 1 received, 0% packet loss\n"
                         "rtt min/avg/max/mdev = 0.100/0.200/0.300/0.000 ms\n", "", 0.01)
    api = api_with(Seams(run_on_nas=run_on_nas))
    job = api.run_job("tengig.mesh.apply", REQUEST, {"system": "truenas", "hosts": ["nas"], "checkin_timeout": 10})
    assert job.state == JobState.SUCCESS, job.error
    assert job.result[0]["host"] == "nas" and job.result[0]["changed"]
    _, far_ends = _plan_for_nas()
    assert sorted((argv[argv.index("-I") + 1], argv[-1]) for argv in pinged if argv[0] == "ping") == sorted(
        {(port, address) for port, (_, _, address) in far_ends.items()})
    with nas.client() as client:
        backend = TrueNASBackend(client)
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
