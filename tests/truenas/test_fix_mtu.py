"""The MTU fix on a TrueNAS (fix/truenas_interface.py) against the stand-in: the port's MTU read from
interface.query, changed through interface.update + commit (rollback armed) + checkin once every desktop that
reached the NAS over it answers a don't-fragment ping filling a frame of the path's MTU; a desktop that does not
answer leaves no checkin and the previous MTU back."""
from __future__ import annotations

import contextlib

import pytest

from tengig.backends.truenas import StagedChangeFailed, TrueNASBackend
from tengig.errors import TengigError, ValidationError
from tengig.fix.catalog import mtu
from tengig.fix.truenas_interface import Peer, TrueNasInterfaces
from tengig.runner import Completed

PORT = "enp3s0f0"
DESK = Peer(name="desk", address="10.250.0.2", mtu=1500)
REPLY = "1 packets transmitted, 1 received, 0% packet loss, time 0ms\nrtt min/avg/max/mdev = 0.1/0.2/0.3/0.0 ms\n"
SILENT = "1 packets transmitted, 0 received, 100% packet loss, time 0ms\n"


class Pings:
    """run_on_nas for the probe: each ping's argv kept, answered or not."""

    def __init__(self, answers: bool = True):
        self.argvs, self.answers = [], answers

    def __call__(self, argv):
        self.argvs.append(list(argv))
        return Completed(argv=tuple(argv), returncode=0 if self.answers else 1, seconds=0.0,
                         stdout=REPLY if self.answers else SILENT, stderr="")


def _interfaces(client, pings, peers=None, **kwargs):
    @contextlib.contextmanager
    def opener():
        yield TrueNASBackend(client)
    return TrueNasInterfaces(opener, pings, {PORT: [DESK]} if peers is None else peers, probe_interval=0.05, **kwargs)


def _jumbo(client):
    backend = TrueNASBackend(client)
    backend.update_interface(PORT, {"mtu": 9000})
    backend.commit(rollback=True, checkin_timeout=10)
    backend.checkin()


def test_the_mtu_goes_through_truenas_staged_change_with_a_dont_fragment_ping_of_the_path(standin):
    nas = standin("25.10")
    setting = mtu("truenas", PORT)
    with nas.client() as client:
        _jumbo(client)
        pings = Pings()
        ports = _interfaces(client, pings)
        assert ports.read(setting) == ports.previous(setting) == "9000"
        ports.write(setting, "1500")
        backend = TrueNASBackend(client)
        assert ports.read(setting) == "1500"
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
    assert nas.active()[PORT]["mtu"] == 1500
    assert pings.argvs[0] == ["ping", "-n", "-c", "1", "-W", "1", "-M", "do", "-s", "1472", "-I", PORT, DESK.address]


def test_back_to_jumbo_the_probe_fills_the_frame_the_desktop_takes(standin):
    """Putting 9000 back (a fix without a gain) probes with the frame the path then carries: the desktop's
    1500 bytes, not 9000 it would drop."""
    nas = standin("25.10")
    with nas.client() as client:
        pings = Pings()
        _interfaces(client, pings).write(mtu("truenas", PORT), "9000")
    assert nas.active()[PORT]["mtu"] == 9000 and "1472" in pings.argvs[0]


def test_a_desktop_that_does_not_answer_leaves_no_checkin_and_the_previous_mtu(standin):
    nas = standin("25.10")
    setting = mtu("truenas", PORT)
    with nas.client() as client:
        _jumbo(client)
        ports = _interfaces(client, Pings(answers=False), checkin_timeout=2)
        with pytest.raises(StagedChangeFailed) as failed:
            ports.write(setting, "1500")
        backend = TrueNASBackend(client)
        assert ports.read(setting) == "9000"
        assert not backend.has_pending_changes() and backend.checkin_waiting() is None
    assert nas.active()[PORT]["mtu"] == 9000
    message = str(failed.value)
    assert f"{PORT} -> desk {DESK.address} (don't-fragment, 1500 bytes) (no reply) did not answer" in message
    assert "previous network configuration is back" in message


def test_no_desktop_on_the_port_or_no_mtu_changes_nothing(standin):
    nas = standin("25.10")
    with nas.client() as client:
        _jumbo(client)
        pings = Pings()
        with pytest.raises(TengigError, match=f"no desktop of the run reached the NAS over {PORT}"):
            _interfaces(client, pings, peers={}).write(mtu("truenas", PORT), "1500")
        with pytest.raises(ValidationError, match="is no MTU"):
            _interfaces(client, pings).write(mtu("truenas", PORT), "90000")
    assert nas.active()[PORT]["mtu"] == 9000 and pings.argvs == []
