"""Issue 6's must-show: a LAGG applied through the TrueNAS backend against the stand-in of docs/truenas-api.md
§3 (a stand-in, not TrueNAS): the happy path from the NAS's own inventory, TrueNAS's validation errors
with their field paths, a bond that never answers rolled back, a change nobody checks in rolled back by
TrueNAS itself, and the caller's own interface refused."""
import time

import pytest

from tengig.backends.truenas import ProbeResult, ProbeTarget, StagedChangeFailed, TrueNASBackend
from tengig.errors import ValidationError
from tengig.lagg import plan_lagg
from tengig.lagg.apply_truenas import apply_lagg_truenas
from tengig.standin.truenas import SeedInterface, StandinSeed

TEN_G = "10000Mb/s Twisted Pair"
ANSWERS = ProbeResult(ok=True, targets=[ProbeTarget(name="bond0 -> 10.20.0.1", ok=True, detail="0.1 ms")])
SILENT = ProbeResult(ok=False, targets=[ProbeTarget(name="bond0 -> 10.20.0.1", ok=False, detail="no reply")])


def seed_001(release="25.04", extra=()):
    """Seed 001's NAS: two dual-port X540 cards (enp3s0f*, enp4s0f*) and a 1G management port (the session's)."""
    return StandinSeed(release=release, session_interface="enp1s0", interfaces=[
        SeedInterface(name="enp1s0", media_subtype="1000Mb/s Twisted Pair", aliases=["192.168.1.10/24"]),
        *(SeedInterface(name=n, media_subtype=TEN_G) for n in ("enp3s0f0", "enp3s0f1", "enp4s0f0", "enp4s0f1")),
        *extra])


def _plan(backend, **options):
    return plan_lagg({"nics": [n.model_dump() for n in backend.nics()], "platform": "truenas-scale",
                      "topology": "lacp-switch", "goal": "aggregate-many-clients", "client_count": 5,
                      "options": {"address": "10.20.0.5/24", **options}})


def test_happy_path_from_the_nas_inventory(standin):
    nas = standin(seed=seed_001())
    with nas.client() as client:
        backend = TrueNASBackend(client)
        plan = _plan(backend)
        assert [m.name for m in plan.members] == ["enp3s0f0", "enp4s0f0"]  # one per card (seed 001)
        result = apply_lagg_truenas(plan, backend, lambda: ANSWERS, checkin_timeout=5, probe_interval=0.05)
        assert result.changed and result.api_calls == ["interface.create"]
        assert plan.name == "bond0"  # SCALE's first free bondN
        bond = backend.interface("bond0")
        assert bond["type"] == "LINK_AGGREGATION" and bond["lag_protocol"] == "LACP"
        assert bond["lag_ports"] == ["enp3s0f0", "enp4s0f0"] and bond["xmit_hash_policy"] == "LAYER3+4"
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
        again = apply_lagg_truenas(plan, backend, lambda: pytest.fail("nothing to probe"), checkin_timeout=5)
        assert not again.changed
    assert "bond0" in nas.active()


@pytest.mark.parametrize("case, field, words", [
    ("member of another bond", "interface_create.lag_ports.1", "currently in use by bond5"),
    ("member with its own address", "interface_create.lag_ports.1", "currently in use"),
    ("not an interface", "interface_create.lag_ports.1", "not a valid interface"),
])
def test_truenas_refuses_with_its_field_paths(standin, case, field, words):
    """The inventory changed after planning: TrueNAS's own validation catches it, with its field path,
    and nothing stays staged."""
    nas = standin(seed=seed_001())
    with nas.client() as client:
        backend = TrueNASBackend(client)
        plan = _plan(backend)
    extra = {
        "member of another bond": [SeedInterface(name="bond5", type="LINK_AGGREGATION", lag_protocol="FAILOVER",
                                                 lag_ports=["enp4s0f0", "enp4s0f1"])],
        "member with its own address": [],
        "not an interface": [],
    }[case]
    seed = seed_001(extra=extra)
    if case == "member with its own address":
        seed.interfaces[3].aliases = ["10.99.0.1/24"]  # enp4s0f0 got an address after planning
    if case == "not an interface":
        seed.interfaces = [i for i in seed.interfaces if i.name != "enp4s0f0"]  # the card was pulled
    changed = standin(seed=seed)
    with changed.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(ValidationError) as err:
            apply_lagg_truenas(plan, backend, lambda: ANSWERS, checkin_timeout=5)
        assert any(f == field and words.lower() in m.lower() for f, m in err.value.errors), err.value.errors
        assert not backend.has_pending_changes() and backend.interface("bond0") is None


def test_scale_refuses_round_robin_with_truenas_words(standin):
    nas = standin(seed=seed_001())
    with nas.client() as client:
        backend = TrueNASBackend(client)
        plan = _plan(backend).model_copy(update={"protocol": "ROUNDROBIN"})  # as if planned for CORE
        with pytest.raises(ValidationError) as err:
            apply_lagg_truenas(plan, backend, lambda: ANSWERS, checkin_timeout=5)
        assert ("interface_create.lag_protocol", "TrueNAS SCALE does not support LAG protocol ROUNDROBIN") in [
            (f, m) for f, m in err.value.errors]


def test_a_bond_that_never_answers_is_rolled_back(standin):
    nas = standin(seed=seed_001())
    before = nas.active()
    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(StagedChangeFailed) as failed:
            apply_lagg_truenas(_plan(backend), backend, lambda: SILENT, checkin_timeout=2, probe_interval=0.1)
        assert "bond0 -> 10.20.0.1" in str(failed.value)
        assert backend.interface("bond0") is None and not backend.has_pending_changes()
    assert nas.active() == before


def test_a_bond_nobody_checks_in_is_rolled_back_by_truenas_itself(standin):
    nas = standin(seed=seed_001())
    before = nas.active()
    with nas.client() as client:
        backend = TrueNASBackend(client)
        backend.create_interface({"type": "LINK_AGGREGATION", "name": "bond1", "lag_protocol": "LACP",
                                  "lag_ports": ["enp3s0f0", "enp4s0f0"]})
        backend.commit(rollback=True, checkin_timeout=1)  # ... and tengig dies here
        assert "bond1" in nas.active()
        deadline = time.monotonic() + 5
        while "bond1" in nas.active() and time.monotonic() < deadline:
            time.sleep(0.1)
    assert nas.active() == before


def test_the_callers_own_interface_is_refused(standin):
    """The session arrives on a 10G port (no management port): the planner refuses it unless confirmed,
    and the apply refuses it again unless the caller confirms there too (it could cut the session)."""
    seed = seed_001()
    seed.interfaces = [i for i in seed.interfaces if i.name != "enp1s0"]
    seed.interfaces[0].aliases = ["192.168.1.10/24"]
    seed.session_interface = "enp3s0f0"
    nas = standin(seed=seed)
    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(ValidationError) as planned:
            _plan(backend, members=["enp3s0f0", "enp4s0f0"])
        assert any(f == "options.members.0" for f, _ in planned.value.errors), planned.value.errors
        plan = _plan(backend, members=["enp3s0f0", "enp4s0f0"], confirm_session_interface=True,
                     clear_member_config=True)
        with pytest.raises(ValidationError) as err:
            apply_lagg_truenas(plan, backend, lambda: ANSWERS, checkin_timeout=5)
        assert [f for f, _ in err.value.errors] == ["confirm_session_interface"]
        assert "enp3s0f0" in str(err.value) and not backend.has_pending_changes()


def _configure(nas, tmp_path, monkeypatch) -> list[dict]:
    """Make the stand-in the configured TrueNAS (as `tengig serve` next to it would be); its ports."""
    key_file = tmp_path / "key"
    key_file.write_text(nas.nas.api_key)
    monkeypatch.setenv("TENGIG_TRUENAS_URL", nas.base)
    monkeypatch.setenv("TENGIG_TRUENAS_API_KEY_FILE", str(key_file))
    with nas.client() as client:
        return [n.model_dump() for n in TrueNASBackend(client).nics()]


def _lagg_request(nics) -> dict:
    return {"nics": nics, "platform": "truenas-scale", "topology": "lacp-switch", "goal": "aggregate-many-clients",
            "options": {"address": "10.20.0.5/24"}}


def test_tengig_lagg_apply_job_against_the_configured_truenas(standin, tmp_path, monkeypatch, api):
    """tengig.lagg.apply {system: truenas} through the API host: the probe is a real ping from here over
    the new bond, which does not exist on this machine, so the bond never answers and the TrueNAS is
    rolled back; the job fails saying so."""
    from tengig.api.jobs import JobState

    nas = standin(seed=seed_001())
    request = _lagg_request(_configure(nas, tmp_path, monkeypatch))
    missing = api.run_job("tengig.lagg.apply", request, {"system": "truenas"})
    assert missing.state == JobState.FAILED and missing.exc_info["extra"][0][0] == "options.probe_address"
    job = api.run_job("tengig.lagg.apply", request, {"system": "truenas", "probe_address": "10.20.0.1",
                                                      "checkin_timeout": 5})
    assert job.state == JobState.FAILED and "did not answer" in job.error, job.error
    with nas.client() as client:
        backend = TrueNASBackend(client)
        assert backend.interface("bond0") is None and not backend.has_pending_changes()


def test_a_bond_the_person_does_not_confirm_is_rolled_back(standin):
    """wait_for_checkin: the probe answered, but the confirmation from the person's session never came
    (say their browser could no longer reach the NAS): rolled back, the bond gone."""
    from tengig.checkin import NotConfirmed

    nas = standin(seed=seed_001())
    with nas.client() as client:
        backend = TrueNASBackend(client)
        asked = []
        with pytest.raises(NotConfirmed) as err:
            apply_lagg_truenas(_plan(backend), backend, lambda: ANSWERS, checkin_timeout=5, probe_interval=0.05,
                               await_checkin=lambda left: asked.append(left) or False)
        assert "nobody confirmed" in str(err.value) and "rolled it back" in str(err.value)
        assert asked and 0 < asked[0] <= 5  # the time left before TrueNAS's own rollback, margin kept
        assert backend.interface("bond0") is None and not backend.has_pending_changes()
        confirmed = apply_lagg_truenas(_plan(backend), backend, lambda: ANSWERS, checkin_timeout=5,
                                       probe_interval=0.05, await_checkin=lambda left: True)
        assert confirmed.changed and backend.interface("bond0") is not None and backend.checkin_waiting() is None


def test_the_apply_job_waits_for_tengig_lagg_checkin_with_a_countdown(standin, tmp_path, monkeypatch, api_with):
    """tengig.lagg.apply {wait_for_checkin} through the API host: after the probe the job counts down in
    progress.extra.checkin until tengig.lagg.checkin arrives; then TrueNAS gets interface.checkin. A
    checkin with nothing waiting is refused (ENOENT)."""
    import errno

    from tengig.api import CallError
    from tengig.api.jobs import JobState
    from tengig.systems.seams import Seams

    from ..inprocess import until_waiting_for_checkin

    nas = standin(seed=seed_001())
    request = _lagg_request(_configure(nas, tmp_path, monkeypatch))
    # The API host's probe seam: a stand-in for the ping through the new bond (no bond can exist on this
    # machine's kernel), asked for the plan's bond and the probe address.
    probed = []
    api = api_with(Seams(lagg_probe=lambda name, address: probed.append((name, address)) or (lambda: ANSWERS)))
    with pytest.raises(CallError) as nothing:
        api.call("tengig.lagg.checkin")
    assert nothing.value.errno == errno.ENOENT

    async def scenario():
        job = await api.middleware.call("tengig.lagg.apply", request, {
            "system": "truenas", "probe_address": "10.20.0.1", "checkin_timeout": 20, "wait_for_checkin": True})
        checkin = await until_waiting_for_checkin(job, timeout=10)
        assert 5 < checkin["seconds_left"] <= 20 and checkin["method"] == "tengig.lagg.checkin"
        with nas.client() as client:
            assert TrueNASBackend(client).checkin_waiting() is not None  # committed, TrueNAS's timer running
        assert await api.middleware.call("tengig.lagg.checkin") is True
        return await api.middleware.wait_job(job)
    job = api.run(scenario(), timeout=30)
    assert job.state == JobState.SUCCESS, job.error
    assert probed == [("bond0", "10.20.0.1")]
    with nas.client() as client:
        backend = TrueNASBackend(client)
        assert backend.interface("bond0")["lag_ports"] == ["enp3s0f0", "enp4s0f0"]
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None


def test_nic_query_reads_the_configured_truenas(standin, tmp_path, monkeypatch, api):
    """tengig.nic.query {system: truenas}: the inventory a TrueNAS LAGG is planned from, the session's port marked."""
    _configure(standin(seed=seed_001()), tmp_path, monkeypatch)
    nics = api.call("tengig.nic.query", {"system": "truenas"})
    by_name = {n["name"]: n for n in nics}
    assert sorted(by_name) == ["enp1s0", "enp3s0f0", "enp3s0f1", "enp4s0f0", "enp4s0f1"]
    assert by_name["enp1s0"]["carries_session"] and not by_name["enp3s0f0"]["carries_session"]
    assert by_name["enp3s0f0"]["speed_bps"] == 10**10
