"""The client's SMB session as the NAS sees it while a copy runs: dialect, signing, encryption and its
channels, read from `smbstatus --json` on the NAS.

Samba reports signing per session from the packets processed so far ("full": every one signed, "partial":
some signed, some not). The session setup of SMB 3.x is always signed, so a session seen before its first
data packet reads "full" even where the data goes unsigned; the probe therefore keeps reading a "full"
session and keeps the last sighting, which the copy's own packets have decided."""
from __future__ import annotations

import threading

from ...errors import TengigError
from ..context import BenchContext
from ..parse.smbstatus_parse import parse_session_channels
from ..phases.nas_share import NasShare
from ..phases.smb_probes import SmbSession, parse_smbstatus_session

FIRST_SIGHTING_S = 0.2  # until the session shows up
SIGNED_SO_FAR_S = 1.0  # while every packet so far was signed (undecided until data has flowed)
CHANNELS_S = 2.0  # channels only: smbstatus costs smbd's host CPU, read it seldom


class Channels:
    """The most channels the client's session held, and the NAS's addresses they reached."""

    def __init__(self) -> None:
        self.count = 0
        self.addresses: list[str] = []

    def seen(self, text: str, peer: str) -> None:
        for session in parse_session_channels(text, peer):
            if session.channels is not None and len(session.channels) > self.count:
                self.count, self.addresses = len(session.channels), session.nas_addresses


class SessionProbe:
    """Reads the client's SMB session and its channels on the NAS while the client's first copy runs. With
    ``channels=False`` (the small-file batches, whose figures smbd's CPU bounds: each smbstatus costs that
    CPU) it stops once the session's signing is decided; the big copies read the channels."""

    def __init__(self, ctx: BenchContext, nas: str, share: NasShare, peer: str, *, channels: bool = True):
        self.found: SmbSession | None = None
        self.channels = Channels()
        self.want_channels = channels
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, args=(ctx.uncancellable(), nas, share, peer), daemon=True)
        self._thread.start()

    def _poll(self, ctx: BenchContext, nas: str, share: NasShare, peer: str) -> None:
        while not self._stop.is_set():
            try:
                done = ctx.run(nas, share.smbstatus_argv(), timeout=30, check=False, record=False)
                if done.returncode == 0:
                    self.found = parse_smbstatus_session(done.stdout, peer) or self.found
                    self.channels.seen(done.stdout, peer)
            except TengigError:
                return
            undecided = self.found is not None and self.found.signing_degree == "full"
            if self.found is not None and not undecided and not (self.want_channels and self.channels.count):
                return  # decided, and no channels to follow (not asked, or this Samba lists none: before 4.18)
            self._stop.wait(FIRST_SIGHTING_S if self.found is None else SIGNED_SO_FAR_S if undecided else CHANNELS_S)

    def stop(self) -> tuple[SmbSession | None, Channels | None]:
        """(the session, its channels: None where this Samba lists none)"""
        self._stop.set()
        self._thread.join(timeout=35)
        return self.found, (self.channels if self.channels.count else None)
