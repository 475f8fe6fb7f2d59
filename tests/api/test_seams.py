"""Where the services act is given to them by the host that builds them (tengig.systems.seams.Seams),
never patched into a class: each seam a test gives is the one its services call, two hosts with
different seams live side by side, and a service built as middlewared builds it (``cls(middleware)``)
acts through the real ones. (run_on_nas and lagg_probe are exercised against a stand-in TrueNAS in
tests/truenas/test_mesh_apply.py and test_lagg_apply.py.)"""
from __future__ import annotations

import pytest

from tengig.api import Registry
from tengig.api.jobs import JobState
from tengig.api.services import default_services
from tengig.api.services.bench import TenGigBenchService
from tengig.api.services.lagg import TenGigLaggService
from tengig.api.services.mesh import TenGigMeshService
from tengig.errors import ValidationError
from tengig.server.apikeys import ApiKeyStore
from tengig.server.app import TengigServer
from tengig.systems import resolve
from tengig.systems.local import truenas_here
from tengig.systems.seams import DEFAULT_SEAMS, Seams, inside_middlewared, ping_here, run_here
from tengig.systems.truenas import outside_truenas

from ..mesh.layouts import THREE_HOSTS_10G

LAGG_REQUEST = {"nics": [
    {"name": n, "kind": "physical", "mac": None, "link": "up", "speed_bps": 10**10, "duplex": "full", "mtu": 1500,
     "driver": "ixgbe", "pci_slot": card + ".0", "card": card, "addresses": [], "in_use_by": None,
     "carries_session": False, "link_flaps": 0}
    for n, card in (("enp3s0f0", "0000:03:00"), ("enp3s0f1", "0000:03:00"), ("enp4s0f0", "0000:04:00"),
                    ("enp4s0f1", "0000:04:00"))],
    "platform": "linux", "topology": "lacp-switch", "goal": "aggregate-many-clients",
    "options": {"address": "10.20.0.5/24"}}


def _refusing(asked: list, name: str):
    """A seam that records what it was asked and refuses, naming itself (nothing is measured or changed)."""
    def seam(*args):
        asked.append(args)
        raise ValidationError.one("system", f"{name}: the test's seam")
    return seam


@pytest.fixture(autouse=True)
def results_db(tmp_path, monkeypatch):
    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "results.sqlite3"))


def test_a_bench_job_measures_on_the_system_its_hosts_seam_resolves(api_with):
    asked = []
    api = api_with(Seams(bench_system=_refusing(asked, "bench seam")))
    job = api.run_job("tengig.bench.pool", {"system": "lab", "pool": "tgtank"})
    assert job.state == JobState.FAILED and "bench seam: the test's seam" in job.error, job.error
    assert asked == [("lab", "tgtank")]


def test_lagg_verify_measures_from_the_system_its_lagg_seam_resolves(api_with):
    asked = []
    api = api_with(Seams(lagg_system=_refusing(asked, "lagg seam")))
    job = api.run_job("tengig.lagg.verify", LAGG_REQUEST, {"seconds": 2, "omit": 0})
    assert job.state == JobState.FAILED and "lagg seam: the test's seam" in job.error, job.error
    assert asked == [()]


@pytest.mark.parametrize("method", ["tengig.mesh.apply", "tengig.mesh.verify"])
def test_mesh_apply_and_verify_act_on_the_system_their_mesh_seam_resolves(api_with, method):
    asked = []
    api = api_with(Seams(mesh_system=_refusing(asked, "mesh seam")))
    job = api.run_job(method, THREE_HOSTS_10G, {"system": "local", "hosts": ["desk"]})
    assert job.state == JobState.FAILED and "mesh seam: the test's seam" in job.error, job.error
    assert asked == [("local", ["desk"])]


def test_two_hosts_with_different_seams_side_by_side(api_with):
    """No process-wide state: each host's services keep the seams their host was built with."""
    first, second = [], []
    one = api_with(Seams(bench_system=_refusing(first, "first")))
    two = api_with(Seams(bench_system=_refusing(second, "second")))
    assert "second" in two.run_job("tengig.bench.pool", {"system": "lab"}).error
    assert "first" in one.run_job("tengig.bench.pool", {"system": "local"}).error
    assert first == [("local", None)] and second == [("lab", None)]


def test_the_registry_gives_its_seams_to_every_service_it_binds():
    seams = Seams(bench_system=_refusing([], "x"))
    registry = Registry.default(seams=seams).with_services()  # with_services keeps them
    methods = registry.bind(object())
    for name in ("tengig.bench.run", "tengig.lagg.verify", "tengig.mesh.apply", "tengig.results.query"):
        assert methods[name].function.__self__.seams is seams
    assert Registry.default().seams is DEFAULT_SEAMS
    assert Registry.default().with_seams(seams).seams is seams


def test_tengig_server_gives_its_seams_parameter_to_the_services(tmp_path):
    seams = Seams(mesh_system=_refusing([], "x"))
    keys = ApiKeyStore(tmp_path / "apikeys.sqlite3")
    given = TengigServer(host=None, unix_socket=None, ui_dir=None, seams=seams, api_keys=keys)
    assert given.middleware.methods["tengig.mesh.apply"].function.__self__.seams is seams
    default = TengigServer(host=None, unix_socket=None, ui_dir=None, api_keys=keys)
    assert default.middleware.methods["tengig.mesh.apply"].function.__self__.seams is DEFAULT_SEAMS


def test_built_with_no_seams_the_services_act_through_the_real_seams():
    for cls in default_services():
        assert cls(object()).seams is DEFAULT_SEAMS
    assert DEFAULT_SEAMS.bench_system is resolve.bench_system and DEFAULT_SEAMS.mesh_system is resolve.mesh_system
    assert DEFAULT_SEAMS.lagg_system is resolve.lagg_system
    assert DEFAULT_SEAMS.run_on_nas is run_here and DEFAULT_SEAMS.lagg_probe is ping_here
    assert DEFAULT_SEAMS.truenas is outside_truenas and DEFAULT_SEAMS.truenas_here is truenas_here


def test_inside_middlewared_system_truenas_is_middlewared_itself_and_this_machine_a_truenas():
    """What the plugin hands its services (seams.inside_middlewared): its middleware object is the TrueNAS,
    called through call_sync; nothing else differs from the real seams."""
    called = []

    class Middleware:
        def call_sync(self, method, *params):
            called.append((method, *params))
            return [] if method == "interface.query" else None

    seams = inside_middlewared(Middleware())
    with seams.truenas() as backend:
        assert backend.nics() == []
    assert called == [("interface.query",), ("interface.websocket_interface",)]
    assert "inside this TrueNAS's middlewared" in seams.truenas_here()
    assert seams.mesh_system is resolve.mesh_system and seams.run_on_nas is run_here


TRUENAS_HERE = "this machine is TrueNAS (the test's seam)"


@pytest.mark.parametrize("method,request_,options", [
    ("tengig.mesh.apply", THREE_HOSTS_10G, {"system": "local", "hosts": ["desk"]}),
    ("tengig.lagg.apply", LAGG_REQUEST, {"system": "local"}),
])
def test_on_a_truenas_an_apply_with_iproute2_is_refused_naming_system_truenas(api_with, method, request_, options):
    """TrueNAS owns its network configuration: system local would change interfaces behind middlewared's
    back (its next interface.sync undoes it). Refused before any system is resolved or touched."""
    asked = []
    api = api_with(Seams(truenas_here=lambda: TRUENAS_HERE, mesh_system=_refusing(asked, "mesh seam")))
    job = api.run_job(method, request_, options)
    assert job.state == JobState.FAILED, job.result
    assert job.exc_info["extra"][0][0] == "options.system", job.exc_info
    assert TRUENAS_HERE in job.error and "system: truenas" in job.error and "iproute2" in job.error
    assert asked == []


def test_off_a_truenas_system_local_is_not_refused_for_it(api_with):
    asked = []
    api = api_with(Seams(truenas_here=lambda: None, mesh_system=_refusing(asked, "mesh seam")))
    job = api.run_job("tengig.mesh.apply", THREE_HOSTS_10G, {"system": "local", "hosts": ["desk"]})
    assert "mesh seam" in job.error and asked == [("local", ["desk"])]


def test_no_service_class_carries_a_seam_to_patch():
    for cls in (TenGigBenchService, TenGigLaggService, TenGigMeshService):
        assert not {"_system_factory", "_probe_factory", "_nas_runner"} & set(vars(cls)), cls


def test_the_mesh_resolver_needs_one_host_for_this_machine():
    with pytest.raises(ValidationError) as err:
        resolve.mesh_system("local", ["nas", "desk"])
    assert err.value.errors[0][0] == "options.hosts"
    assert resolve.mesh_system("local", ["desk"]).hosts() == ["desk"]
