"""Login verification in its own small thread pool, with a per-source back-off.

Checking a key costs PBKDF2 (tens of ms of CPU) unless it was verified before; it must never take the
threads that run every method, nor let one source queue hundreds of checks. So:

- checks run in ``LOGIN_THREADS`` threads of their own (hashlib releases the GIL while it hashes);
- one source (an IP address, or a unix-socket uid) has at most ``MAX_WAITING`` logins waiting or
  being checked; more are answered AUTH_ERR at once, unchecked (``refused`` counts them);
- a source's checks run one at a time, and after each failure the next one waits longer
  (``BASE_DELAY_S`` doubling, up to ``MAX_DELAY_S``), forgotten ``FORGET_S`` after its last failure.

Only checks that hash pass through here (ApiKeyStore.check_fast answers the rest: a key verified
before, an unknown id); a logged-in admin's calls never do.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

LOGIN_THREADS = 2
MAX_WAITING = 4
BASE_DELAY_S = 0.05
MAX_DELAY_S = 2.0
FORGET_S = 300.0
MAX_SOURCES = 10_000

T = TypeVar("T")


@dataclass
class _Source:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiting: int = 0
    failures: int = 0
    last_failure: float = 0.0


class LoginGate:
    def __init__(self, *, threads: int = LOGIN_THREADS, max_waiting: int = MAX_WAITING,
                 base_delay: float = BASE_DELAY_S, max_delay: float = MAX_DELAY_S):
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="tengig-login")
        self.max_waiting = max_waiting
        self.base_delay, self.max_delay = base_delay, max_delay
        self._sources: dict[str, _Source] = {}
        self.verified = 0   # checks that ran
        self.refused = 0    # attempts answered AUTH_ERR unchecked (too many waiting from one source)

    async def check(self, source: str, verify: Callable[..., T | None], *args: Any) -> T | None:
        """``verify(*args)`` in the login pool, or None (refused) if ``source`` has too many waiting."""
        state = self._source(source)
        if state.waiting >= self.max_waiting:
            self.refused += 1
            return None
        state.waiting += 1
        try:
            async with state.lock:
                delay = self._delay(state)
                if delay:
                    await asyncio.sleep(delay)
                self.verified += 1
                result = await asyncio.get_running_loop().run_in_executor(self._pool, verify, *args)
                self.record(source, ok=result is not None)
                return result
        finally:
            state.waiting -= 1

    def record(self, source: str, *, ok: bool) -> None:
        """Count a failure (or clear them after a success) for ``source``."""
        state = self._source(source)
        if ok:
            state.failures = 0
        else:
            state.failures += 1
            state.last_failure = time.monotonic()

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _delay(self, state: _Source) -> float:
        if state.failures and time.monotonic() - state.last_failure > FORGET_S:
            state.failures = 0
        if not state.failures:
            return 0.0
        return min(self.max_delay, self.base_delay * 2 ** min(state.failures - 1, 16))

    def _source(self, source: str) -> _Source:
        state = self._sources.get(source)
        if state is None:
            if len(self._sources) >= MAX_SOURCES:
                self._forget_idle()
            state = self._sources[source] = _Source()
        return state

    def _forget_idle(self) -> None:
        for name in [n for n, s in self._sources.items() if not s.waiting]:
            del self._sources[name]
