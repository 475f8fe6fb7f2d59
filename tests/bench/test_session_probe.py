"""The SMB session probe keeps reading a session Samba shows as signed "full" (every packet so far signed:
the SMB 3 session setup alone, before the copy's first data packet) and keeps the last sighting, which the
copy's packets decided. A desktop held to 2% of a core once let the probe's first and only sighting fall in
that gap, and the verdict advised on SMB signing that was off for the data."""
from __future__ import annotations

import json
import subprocess
import threading

from tengig.bench.join import session_probe
from tengig.bench.join.session_probe import SessionProbe
from tengig.bench.phases.nas_share import NasShare

PEER = "10.250.12.2"


def smbstatus(degree: str | None, channels: int = 0) -> str:
    sessions = {} if degree is None else {"3": {"remote_machine": PEER, "session_dialect": "SMB3_11",
                                                "signing": {"cipher": "AES-128-GMAC", "degree": degree},
                                                "encryption": {"cipher": "-", "degree": "none"}}}
    if channels and sessions:  # Samba 4.18+ lists each session's channels
        sessions["3"]["channels"] = {str(i): {"channel_id": str(i), "local_address": "ipv4:10.250.12.1:445",
                                              "remote_address": f"ipv4:{PEER}:{50000 + i}"}
                                     for i in range(1, channels + 1)}
    return json.dumps({"version": "4.17.12-Debian", "sessions": sessions})


class RecordedNas:
    """Answers the probe's smbstatus with recorded sightings, one per call, the last one repeated."""

    def __init__(self, sightings: list[str | None], channels: int = 0):
        self.sightings, self.calls, self.listed = sightings, 0, channels
        self.done = threading.Event()

    def uncancellable(self) -> "RecordedNas":
        return self

    def run(self, host, argv, **kw):
        assert host == "nas" and argv[:2] == ["smbstatus", "--json"], argv
        text = smbstatus(self.sightings[min(self.calls, len(self.sightings) - 1)], self.listed)
        self.calls += 1
        if self.calls >= len(self.sightings):
            self.done.set()
        return subprocess.CompletedProcess(argv, 0, text, "")


def probe_through(sightings: list[str | None], monkeypatch, *, listed: int = 0,
                  channels: bool = True) -> tuple[SessionProbe, RecordedNas]:
    for name in ("FIRST_SIGHTING_S", "SIGNED_SO_FAR_S", "CHANNELS_S"):
        monkeypatch.setattr(session_probe, name, 0.01)
    nas = RecordedNas(sightings, listed)
    probe = SessionProbe(nas, "nas", NasShare(name="share", path="/mnt/tank/share", conf=None), PEER,
                         channels=channels)
    assert nas.done.wait(10)
    return probe, nas


def test_a_session_first_seen_signed_so_far_is_read_again_until_its_data_decides(monkeypatch):
    probe, nas = probe_through([None, "full", "full", "partial"], monkeypatch)
    session, channels = probe.stop()
    assert session.signing_degree == "partial" and not session.signing  # the data went unsigned
    assert channels is None  # Samba 4.17 lists none


def test_signing_that_stays_full_through_the_copy_is_signing(monkeypatch):
    probe, nas = probe_through([None, "full", "full", "full"], monkeypatch)
    session, _ = probe.stop()
    assert session.signing and nas.calls >= 4


def test_a_decided_session_is_not_read_again_on_a_samba_without_channels(monkeypatch):
    probe, nas = probe_through([None, "partial"], monkeypatch)
    probe._thread.join(5)
    assert not probe._thread.is_alive() and nas.calls == 2  # stopped itself: smbstatus costs the NAS CPU
    assert probe.stop()[0].signing_degree == "partial"


def test_channels_are_followed_for_the_big_copies_and_not_for_the_small_files(monkeypatch):
    """smbstatus costs smbd's host CPU: during a small-file batch (whose files/s that CPU bounds) the probe
    stops once the signing is decided, even on a Samba that lists channels; for a big copy it keeps reading
    them (the most channels the session held)."""
    small, nas = probe_through([None, "partial"], monkeypatch, listed=2, channels=False)
    small._thread.join(5)
    assert not small._thread.is_alive() and nas.calls == 2
    session, channels = small.stop()
    assert session.signing_degree == "partial" and channels.count == 2
    big, nas = probe_through([None, "partial", "partial", "partial"], monkeypatch, listed=2)
    assert big._thread.is_alive() and nas.calls >= 4  # still reading
    assert big.stop()[1].count == 2
