"""apply_staged against the stand-in: stage, commit, probe, checkin; or roll back, refuse, or do nothing."""
import threading

import pytest

from tengig.backends.truenas import ProbeResult, ProbeTarget, StagedChangeFailed, TrueNASBackend, apply_staged
from tengig.errors import Aborted, TengigError, ValidationError
from tengig.changes import ApiCall

ALIAS = [{"type": "INET", "address": "10.250.0.1", "netmask": 30}]
CALLS = [
    ApiCall(method="interface.update", params=["enp3s0f0", {"aliases": ALIAS, "mtu": 9000, "ipv4_dhcp": False}]),
    ApiCall(method="network.configuration.update", params=[{"hosts": ["10.250.0.2 desk # tengig-mesh"]}]),
]
OK = ProbeResult(ok=True, targets=[ProbeTarget(name="C01 enp3s0f0 -> desk 10.250.0.2", ok=True, detail="0.2 ms")])
SILENT = ProbeResult(ok=False, targets=[ProbeTarget(name="C01 enp3s0f0 -> desk 10.250.0.2", ok=False,
                                                    detail="no reply to 3 pings")])


def test_happy_path_applies_checks_in_and_writes_hosts(standin):
    nas = standin("25.04")
    steps, answers = [], iter([SILENT, SILENT, OK])
    with nas.client() as client:
        backend = TrueNASBackend(client)
        result = apply_staged(backend, CALLS, lambda: next(answers), checkin_timeout=5, probe_interval=0.05,
                              progress=lambda p, d: steps.append((p, d)))
        assert (result.changed, result.staged_calls, result.hosts_updated, result.probe_attempts) == (True, 1, True, 3)
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
        # the user's own line is kept, ours appended
        assert backend.hosts() == ["192.168.1.20 printer", "10.250.0.2 desk # tengig-mesh"]
    assert nas.active()["enp3s0f0"]["aliases"] == ALIAS
    assert steps[0][0] == 0 and steps[-1] == (100, "Applied")
    assert [p for p, _ in steps] == sorted(p for p, _ in steps)


def test_reapplying_does_nothing(standin):
    nas = standin("25.10")
    with nas.client() as client:
        backend = TrueNASBackend(client)
        apply_staged(backend, CALLS, lambda: OK, checkin_timeout=5)
        hooks = len(nas.hook_calls)
        again = apply_staged(backend, CALLS, lambda: pytest.fail("nothing to probe"), checkin_timeout=5)
        assert (again.changed, again.staged_calls, again.hosts_updated) == (False, 0, False)
        assert backend.hosts().count("10.250.0.2 desk # tengig-mesh") == 1
    assert len(nas.hook_calls) == hooks


def test_probe_never_answers_rolls_back_explicitly(standin):
    nas = standin("24.10")
    before = nas.active()
    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(StagedChangeFailed) as failed:
            apply_staged(backend, CALLS, lambda: SILENT, checkin_timeout=2, probe_interval=0.1)
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
        assert backend.interface("enp3s0f0")["aliases"] == [] and backend.hosts() == ["192.168.1.20 printer"]
    message = str(failed.value)
    assert "C01 enp3s0f0 -> desk 10.250.0.2 (no reply to 3 pings) did not answer" in message
    assert "previous network configuration is back" in message and failed.value.probe == SILENT
    assert nas.active() == before and nas.hook_calls[-1] == [before["enp1s0"]]


def test_a_probe_that_crashes_counts_as_silent(standin):
    nas = standin("25.04")
    with nas.client() as client:
        def broken():
            raise OSError("ping: not found")
        with pytest.raises(StagedChangeFailed, match="ping: not found"):
            apply_staged(TrueNASBackend(client), CALLS, broken, checkin_timeout=1, probe_interval=0.1)
    assert "enp3s0f0" not in nas.active()


def test_session_interface_needs_confirmation(standin):
    nas = standin("25.04")
    calls = [ApiCall(method="interface.update", params=["enp1s0", {"mtu": 9000}])]
    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(ValidationError) as refused:
            apply_staged(backend, calls, lambda: OK, checkin_timeout=5)
        field, message = refused.value.errors[0]
        assert field == "confirm_session_interface" and "calls.0" in message and "enp1s0" in message
        assert not backend.has_pending_changes()
        done = apply_staged(backend, calls, lambda: OK, checkin_timeout=5, confirm_session_interface=True)
    assert done.changed and nas.active()["enp1s0"]["mtu"] == 9000


def test_someone_elses_pending_changes_are_refused(standin):
    nas = standin("25.04")
    with nas.client() as other, nas.client() as client:
        TrueNASBackend(other).update_interface("enp3s0f1", {"mtu": 9000})
        with pytest.raises(TengigError, match="pending interface changes.* that tengig did not make") as busy:
            apply_staged(TrueNASBackend(client), CALLS, lambda: OK, checkin_timeout=5)
        assert busy.value.errno == 16  # EBUSY
        assert TrueNASBackend(client).interface("enp3s0f1")["mtu"] == 9000  # theirs untouched


def test_a_refused_call_discards_what_was_staged(standin):
    nas = standin("25.04")
    calls = [ApiCall(method="interface.update", params=["enp3s0f0", {"aliases": ALIAS}]),
             ApiCall(method="interface.update", params=["enp3s0f1", {"aliases": ALIAS}])]  # same subnet
    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(ValidationError) as refused:
            apply_staged(backend, calls, lambda: OK, checkin_timeout=5)
        assert refused.value.errors[0][0] == "interface_update.aliases.0"
        assert not backend.has_pending_changes() and backend.interface("enp3s0f0")["aliases"] == []


def test_cancel_after_commit_rolls_back(standin):
    nas = standin("25.04")
    cancel = threading.Event()

    def probe():
        cancel.set()  # the user presses Cancel while we wait for the links
        return SILENT

    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(Aborted, match="rolled back"):
            apply_staged(backend, CALLS, probe, checkin_timeout=5, cancel=cancel, probe_interval=0.05)
        assert not backend.has_pending_changes()
    assert "enp3s0f0" not in nas.active()


def test_only_network_calls(standin):
    nas = standin("25.04")
    with nas.client() as client:
        with pytest.raises(ValidationError) as refused:
            apply_staged(TrueNASBackend(client), [ApiCall(method="pool.dataset.delete", params=["tank"])],
                         lambda: OK, checkin_timeout=5)
    assert refused.value.errors[0][0] == "calls.0.method"
