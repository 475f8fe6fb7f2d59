"""interface.commit with a real rollback timer: checkin keeps the change; no checkin rolls it back by
itself, and the on_active_change hook sees the old config again."""
import time

from tengig.backends.truenas import TrueNASBackend

MESH_ALIAS = [{"type": "INET", "address": "10.250.0.1", "netmask": 30}]


def test_staged_edit_is_not_active_until_commit(standin):
    nas = standin("25.04")
    with nas.client() as client:
        backend = TrueNASBackend(client)
        backend.update_interface("enp3s0f0", {"aliases": MESH_ALIAS, "mtu": 9000})
        entry = backend.interface("enp3s0f0")
        assert entry["aliases"] == MESH_ALIAS and entry["state"]["aliases"] == []  # saved, not applied
        assert backend.has_pending_changes() and backend.checkin_waiting() is None
        assert "enp3s0f0" not in nas.active() and nas.hook_calls == []


def test_commit_and_checkin_keep_the_change(standin):
    nas = standin("25.10")
    with nas.client() as client:
        backend = TrueNASBackend(client)
        backend.update_interface("enp3s0f0", {"aliases": MESH_ALIAS, "mtu": 9000})
        backend.commit(checkin_timeout=1)
        assert 0 <= backend.checkin_waiting() <= 1
        backend.checkin()
        time.sleep(1.3)
        assert backend.checkin_waiting() is None and backend.has_pending_changes() is False
        assert backend.interface("enp3s0f0")["state"]["aliases"] == MESH_ALIAS
    assert nas.active()["enp3s0f0"]["mtu"] == 9000
    assert len(nas.hook_calls) == 1 and nas.hook_calls[0][-1]["name"] == "enp3s0f0"


def test_no_checkin_rolls_back_by_itself(standin):
    nas = standin("24.10")
    with nas.client() as client:
        backend = TrueNASBackend(client)
        before = nas.active()
        backend.update_interface("enp3s0f0", {"aliases": MESH_ALIAS})
        backend.commit(checkin_timeout=1)
        assert "enp3s0f0" in nas.active()
        deadline = time.monotonic() + 3
        while backend.has_pending_changes() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert backend.has_pending_changes() is False and backend.checkin_waiting() is None
        assert backend.interface("enp3s0f0")["aliases"] == []  # the saved config is restored too
    assert nas.active() == before
    assert [[c["name"] for c in call] for call in nas.hook_calls] == [["enp1s0", "enp3s0f0"], ["enp1s0"]]


def test_cancel_rollback_stops_the_timer_but_keeps_pending(standin):
    nas = standin("25.04")
    with nas.client() as client:
        backend = TrueNASBackend(client)
        backend.update_interface("enp3s0f0", {"aliases": MESH_ALIAS})
        backend.commit(checkin_timeout=1)
        backend.cancel_rollback()
        time.sleep(1.3)
        assert backend.has_pending_changes() and backend.checkin_waiting() is None
        assert "enp3s0f0" in nas.active()
        backend.rollback()
        assert "enp3s0f0" not in nas.active() and not backend.has_pending_changes()
