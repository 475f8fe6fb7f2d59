"""Deleting an API key ends the sessions logged in with it, whichever process deleted it.

``tengig apikey delete`` runs in another process, so the server watches the key file: every
``SWEEP_SECONDS`` it compares the file's stamp (mtime, size), and when it changed, reads the current
key ids and disconnects every session whose key is gone. A login with a deleted key fails at once
anyway (the row is read on every login); this closes the connections already open.
"""
from __future__ import annotations

import asyncio
import logging

from .apikeys import ApiKeyStore
from .events import EventHub

logger = logging.getLogger(__name__)

SWEEP_SECONDS = 1.0
FULL_CHECK_EVERY = 10  # sweeps: a change within the file's mtime granularity, same size, is caught anyway


class RevocationWatch:
    def __init__(self, keys: ApiKeyStore, sessions: EventHub, *, interval: float = SWEEP_SECONDS):
        self.keys, self.sessions, self.interval = keys, sessions, interval
        self._stamp = keys.stamp()
        self.revoked_sessions = 0

    async def run(self) -> None:
        sweeps = 0
        while True:
            await asyncio.sleep(self.interval)
            sweeps += 1
            try:
                await self.sweep(force=sweeps % FULL_CHECK_EVERY == 0)
            except Exception:  # a locked or vanished file: try again next time
                logger.exception("checking for deleted API keys failed")

    async def sweep(self, *, force: bool = False) -> int:
        """Disconnect sessions whose key was deleted; how many."""
        stamp = self.keys.stamp()
        if stamp == self._stamp and not force:
            return 0
        self._stamp = stamp
        live = await asyncio.get_running_loop().run_in_executor(None, self.keys.ids)
        ended = 0
        for session in self.sessions.sessions:
            key_id = session.api_key_id
            if key_id is not None and key_id not in live:
                logger.warning("API key %s was deleted: ending the session of %s", key_id, session.origin)
                session.disconnect("API key revoked")
                ended += 1
        self.revoked_sessions += ended
        return ended
