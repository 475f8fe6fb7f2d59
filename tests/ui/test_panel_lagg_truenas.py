"""The LAGG view applies on a TrueNAS the way TrueNAS's own Network page does: committed with a
rollback timer, probed, then a countdown and Confirm in the page; the Confirm (tengig.lagg.checkin)
makes tengig check in. The TrueNAS is the stand-in of docs/truenas-api.md §3 (seed 001's NAS); the probe
"does the new bond answer?" is a stand-in too, since this kernel cannot make a bond to ping through."""
from __future__ import annotations

import pytest

from tengig.api import Registry
from tengig.backends.truenas import ProbeResult, ProbeTarget, TrueNASBackend
from tengig.client import connect
from tengig.standin.truenas import SeedInterface, StandinSeed, StandinThread
from tengig.systems.seams import Seams

from ..server.harness import running_server
from .browser import UI_DIST, require_browser, run_scenario
from .conftest import page_url

pytestmark = pytest.mark.browser  # no lab: runs beside the lab's tests (scripts/test.sh)

TEN_G = "10000Mb/s Twisted Pair"


@pytest.fixture
def probed():
    """What the API host's probe seam was asked: (bond, address) per probe."""
    return []


@pytest.fixture
def panel(tmp_path, probed):
    """This module's API host: the panel's, built with a probe seam that stands in for the ping through
    the new bond (recorded in ``probed``)."""
    def probe_factory(name, address):
        def probe():
            probed.append((name, address))
            return ProbeResult(ok=True, targets=[ProbeTarget(name=f"{name} -> {address}", ok=True, detail="stand-in")])
        return probe
    require_browser()
    with running_server(tmp_path, ui_dir=UI_DIST, registry=Registry.default(),
                        seams=Seams(lagg_probe=probe_factory)) as server:
        yield server


@pytest.fixture
def truenas(tmp_path, monkeypatch, probed):
    seed = StandinSeed(release="25.04", session_interface="enp1s0", interfaces=[
        SeedInterface(name="enp1s0", media_subtype="1000Mb/s Twisted Pair", aliases=["192.168.1.10/24"]),
        *(SeedInterface(name=n, media_subtype=TEN_G) for n in ("enp3s0f0", "enp3s0f1", "enp4s0f0", "enp4s0f1"))])
    with StandinThread(seed) as nas:
        key_file = tmp_path / "truenas.key"
        key_file.write_text(nas.api_key)
        monkeypatch.setenv("TENGIG_TRUENAS_URL", nas.url)
        monkeypatch.setenv("TENGIG_TRUENAS_API_KEY_FILE", str(key_file))
        nas.probed = probed
        yield nas


def test_lagg_apply_on_truenas_counts_down_and_confirm_checks_in(panel, truenas):
    facts = run_scenario("lagg-apply-truenas", page_url(panel), panel.api_key, {"checkinTimeout": 30})["facts"]
    assert facts["errors"] == []
    assert sorted(facts["nics"]) == [f"lagg-nic-{n}" for n in ("enp1s0", "enp3s0f0", "enp3s0f1", "enp4s0f0", "enp4s0f1")]
    assert facts["question"].startswith("Create bond0 (LACP) over enp3s0f0, enp4s0f0 on the TrueNAS?")
    first, second = int(facts["first"].split()[0]), int(facts["second"].split()[0])
    assert 0 < second < first <= 30  # the countdown moves
    assert facts["applied"] == "bond0 is in place: interface.create, committed and checked in."
    assert facts["checkinAfter"] == 0
    assert truenas.probed and truenas.probed[0] == ("bond0", "10.20.0.1")
    with connect(truenas.url, truenas.api_key) as client:
        backend = TrueNASBackend(client)
        bond = backend.interface("bond0")
        assert bond["lag_ports"] == ["enp3s0f0", "enp4s0f0"] and bond["lag_protocol"] == "LACP"
        assert [a["address"] for a in bond["aliases"]] == ["10.20.0.5"]
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
