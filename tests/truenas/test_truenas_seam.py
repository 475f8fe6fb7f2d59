"""``system: truenas`` is the TrueNAS the API host's seams open (tengig.systems.truenas), not something
each service finds in the environment: inside middlewared that is middlewared itself (the plugin hands
its middleware over; tests/realmw), elsewhere the configured one. Here a host built with a stand-in
TrueNAS as its seam, and no TENGIG_TRUENAS_* variable set, lists its ports and applies a mesh on it."""
from __future__ import annotations

import contextlib

import pytest

from tengig.api.jobs import JobState
from tengig.backends.truenas import TrueNASBackend
from tengig.backends.truenas.connection import KEY_FILE_ENV, URL_ENV
from tengig.errors import TengigError
from tengig.runner import Completed
from tengig.systems import truenas as truenas_system
from tengig.systems.seams import Seams

from .test_lagg_apply import seed_001
from .test_mesh_apply import REQUEST, _plan_for_nas


def _opener(nas):
    @contextlib.contextmanager
    def opened(session=None):
        with nas.client() as client:
            yield TrueNASBackend(client)
    return opened


def _pings_answer(argv):
    return Completed(tuple(argv), 0, "1 packets transmitted, 1 received, 0% packet loss\n"
                     "rtt min/avg/max/mdev = 0.100/0.200/0.300/0.000 ms\n", "", 0.01)


@pytest.fixture(autouse=True)
def no_truenas_configured(monkeypatch, tmp_path):
    monkeypatch.delenv(URL_ENV, raising=False)
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "results.sqlite3"))


def test_nic_query_and_mesh_apply_act_on_the_truenas_of_the_hosts_seam(standin, api_with):
    nas = standin(seed=seed_001())
    api = api_with(Seams(truenas=_opener(nas), run_on_nas=_pings_answer))
    names = sorted(n["name"] for n in api.call("tengig.nic.query", {"system": "truenas"}))
    assert names == ["enp1s0", "enp3s0f0", "enp3s0f1", "enp4s0f0", "enp4s0f1"]

    mesh = standin("25.04")
    api = api_with(Seams(truenas=_opener(mesh), run_on_nas=_pings_answer))
    job = api.run_job("tengig.mesh.apply", REQUEST, {"system": "truenas", "hosts": ["nas"], "checkin_timeout": 10})
    assert job.state == JobState.SUCCESS, job.error
    calls, _ = _plan_for_nas()
    active = mesh.active()
    for call in calls[:-1]:
        port, data = call.params
        assert active[port]["aliases"] == data["aliases"] and active[port]["mtu"] == 9000


def test_outside_middlewared_with_nothing_configured_the_error_says_what_to_set(api):
    """Off a TrueNAS, with no TrueNAS named: the real seam's error, naming both variables."""
    assert truenas_system.truenas_here() is None  # this test machine is no TrueNAS
    with pytest.raises(TengigError) as err:
        with truenas_system.outside_truenas():
            pass
    assert URL_ENV in str(err.value) and KEY_FILE_ENV in str(err.value)
