"""Apply through the TrueNAS backend against the stand-in of docs/truenas-api.md §3, with the stand-in's active
network made real in the lab NAS's namespace (its on_active_change hook): the probe is a real ping from
the NAS to its peers, so "the new link never answers" is a real silence, and the rollback takes real
addresses away again."""
import time

import pytest

from tengig.backends.truenas import StagedChangeFailed, TrueNASBackend
from tengig.bench.context import BenchContext
from tengig.client import connect
from tengig.errors import ValidationError
from tengig.lab.mesh_adapter import LabNetHosts, lab_hosts_file, lab_mesh_request, lab_network
from tengig.mesh import MeshRequest, plan_mesh
from tengig.mesh.apply_linux import apply_linux
from tengig.mesh.apply_truenas import apply_truenas
from tengig.mesh.verify import verify_mesh
from tengig.standin.truenas import SeedInterface, StandinSeed, StandinThread

pytestmark = pytest.mark.lab
PORTS = ("eth-desk", "eth-lab")


def _nas_request(lab) -> MeshRequest:
    """The lab's mesh with the NAS as a TrueNAS SCALE."""
    doc = lab_mesh_request(lab).model_dump()
    for h in doc["hosts"]:
        if h["name"] == "nas":
            h["kind"] = "truenas-scale"
    return MeshRequest.model_validate(doc)


def _make_real(lab):
    """The stand-in's hook: the NAS namespace's ports take the active config (addresses, MTU)."""
    net = lab_network(lab, "nas")

    def hook(active):
        by_name = {c["name"]: c for c in active}
        for port in PORTS:
            iface = net.interface(port)
            want = by_name.get(port, {})
            wanted = [f"{a['address']}/{a['netmask']}" for a in want.get("aliases", []) if a.get("type") == "INET"]
            for addr in iface.ipv4:
                if addr not in wanted:
                    net.delete_address(port, addr)
            for addr in wanted:
                if addr not in iface.ipv4:
                    net.add_address(port, addr)
            mtu = want.get("mtu") or 1500
            if iface.mtu != mtu:
                net.set_mtu(port, mtu)
    return hook


def _seed():
    return StandinSeed(release="25.04", session_interface="enp1s0", interfaces=[
        SeedInterface(name="enp1s0", media_subtype="1000Mb/s Twisted Pair", aliases=["192.168.1.10/24"]),
        *(SeedInterface(name=p, media_subtype="1000Mb/s Twisted Pair") for p in PORTS)],
        hosts=["192.168.1.20 printer"])


def _nas_addresses(lab):
    return {p: lab_network(lab, "nas").interface(p).ipv4 for p in PORTS}


def _run_on_nas(lab):
    return lambda argv: lab.run("nas", argv, timeout=10, check=False)


def test_truenas_apply_checks_in_when_links_answer_and_reapply_is_a_noop(bare_lab):
    lab, request = bare_lab, _nas_request(bare_lab)
    plan = plan_mesh(request)
    for h in ("desk", "lab"):
        apply_linux(request, plan, h, lab_network(lab, h), lab_hosts_file(lab, h))
    with StandinThread(_seed(), on_active_change=_make_real(lab)) as nas, connect(nas.url, nas.api_key) as client:
        backend = TrueNASBackend(client)
        result = apply_truenas(plan, "nas", backend, _run_on_nas(lab), checkin_timeout=10, probe_interval=0.2)
        assert result.changed and result.persistent
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
        assert all(len(a) == 1 for a in _nas_addresses(lab).values())
        hosts = backend.hosts()
        assert hosts[0] == "192.168.1.20 printer" and sum("# tengig-mesh" in h for h in hosts) == 2
        # the links really work: desk and lab reach the NAS by name over their direct cables
        check = verify_mesh(BenchContext(LabNetHosts(lab)), plan, ["desk", "lab"], measure_throughput=False,
                            seconds=1, min_percent=90.0)
        assert check.ok, check.problems
        again = apply_truenas(plan, "nas", backend, _run_on_nas(lab), checkin_timeout=10)
        assert not again.changed
        # an interface update that overlaps another interface's network: TrueNAS's error, its field path
        with pytest.raises(ValidationError) as err:
            backend.update_interface("enp1s0", {"aliases": [{"type": "INET", "address": plan.cables[0].a.address,
                                                             "netmask": 24}]})
        assert any("already in use by another interface" in m for _, m in err.value.errors)
        assert all(f.startswith("interface_update.") for f, _ in err.value.errors)
        backend.rollback()


def test_a_link_that_never_answers_rolls_back(bare_lab):
    lab, request = bare_lab, _nas_request(bare_lab)
    plan = plan_mesh(request)
    lab_network(lab, "desk").set_up("eth-nas", False)  # desk's end is dark: the NAS's pings go nowhere
    try:
        with StandinThread(_seed(), on_active_change=_make_real(lab)) as nas, connect(nas.url, nas.api_key) as client:
            backend = TrueNASBackend(client)
            with pytest.raises(StagedChangeFailed) as failed:
                apply_truenas(plan, "nas", backend, _run_on_nas(lab), checkin_timeout=3, probe_interval=0.2)
            assert "desk" in str(failed.value) and "previous network configuration is back" in str(failed.value)
            assert not backend.has_pending_changes()
            assert backend.hosts() == ["192.168.1.20 printer"]
            assert _nas_addresses(lab) == {p: () for p in PORTS}  # the real addresses went away again
    finally:
        lab_network(lab, "desk").set_up("eth-nas", True)


def test_a_change_nobody_checks_in_rolls_back_by_itself(bare_lab):
    """tengig dying right after the commit: TrueNAS's own timer takes the change back."""
    lab = bare_lab
    with StandinThread(_seed(), on_active_change=_make_real(lab)) as nas, connect(nas.url, nas.api_key) as client:
        backend = TrueNASBackend(client)
        backend.update_interface("eth-desk", {"aliases": [{"type": "INET", "address": "10.250.0.1", "netmask": 30}]})
        backend.commit(rollback=True, checkin_timeout=2)
        assert _nas_addresses(lab)["eth-desk"] == ("10.250.0.1/30",)
        assert backend.checkin_waiting() is not None
        deadline = time.monotonic() + 10
        while _nas_addresses(lab)["eth-desk"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _nas_addresses(lab)["eth-desk"] == ()
        assert backend.checkin_waiting() is None and not backend.has_pending_changes()


def test_apply_job_on_the_configured_truenas_waits_for_a_person(bare_lab, tmp_path, monkeypatch, api_with):
    """tengig.mesh.apply {system: truenas, hosts: [nas], wait_for_checkin}: staged, committed, the NAS's
    pings answer, then the job counts down until tengig.mesh.checkin; TrueNAS gets interface.checkin and
    the lab's NAS ports keep their addresses. The probe runs in the lab NAS's namespace (the API host is
    built with its run_on_nas seam where the stand-in's changes land)."""
    from tengig.api.jobs import JobState
    from tengig.systems.seams import Seams

    from ..inprocess import until_waiting_for_checkin

    lab, request = bare_lab, _nas_request(bare_lab)
    plan = plan_mesh(request)
    for h in ("desk", "lab"):
        apply_linux(request, plan, h, lab_network(lab, h), lab_hosts_file(lab, h))
    api = api_with(Seams(run_on_nas=_run_on_nas(lab)))
    with StandinThread(_seed(), on_active_change=_make_real(lab)) as nas:
        key_file = tmp_path / "key"
        key_file.write_text(nas.api_key)
        monkeypatch.setenv("TENGIG_TRUENAS_URL", nas.url)
        monkeypatch.setenv("TENGIG_TRUENAS_API_KEY_FILE", str(key_file))
        bad = api.run_job("tengig.mesh.apply", request.model_dump(mode="json"), {"system": "truenas", "hosts": ["desk"]})

        async def confirmed():
            job = await api.middleware.call("tengig.mesh.apply", request.model_dump(mode="json"), {
                "system": "truenas", "hosts": ["nas"], "wait_for_checkin": True, "checkin_timeout": 30})
            await until_waiting_for_checkin(job)
            waiting_addresses = _nas_addresses(lab)
            assert await api.middleware.call("tengig.mesh.checkin") is True
            return waiting_addresses, await api.middleware.wait_job(job)
        waiting_addresses, job = api.run(confirmed(), timeout=60)
        assert bad.state == JobState.FAILED and "options.hosts.0" in bad.error and "linux host" in bad.error
        assert job.state == JobState.SUCCESS, job.error
        assert all(len(a) == 1 for a in waiting_addresses.values())  # committed while it waited
        with connect(nas.url, nas.api_key) as client:
            backend = TrueNASBackend(client)
            assert not backend.has_pending_changes() and backend.checkin_waiting() is None
        assert job.result[0]["host"] == "nas" and job.result[0]["changed"]
        assert _nas_addresses(lab) == waiting_addresses
