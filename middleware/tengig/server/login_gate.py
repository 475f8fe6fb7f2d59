"""Login checks in their own small thread pool, throttled per address, without one client's wrong
guesses locking out the right credentials of another client at the same address (a NAT, a proxy).

Checking a key costs PBKDF2 (tens of ms of CPU) unless it was verified before; it must never take the
threads that run every method, nor let one source queue hundreds of checks. So:

- checks run in ``LOGIN_THREADS`` threads of their own (hashlib releases the GIL while it hashes);
- a source (an IP address, or a unix-socket uid) has one *lane* for everything that failed from it:
  checks there run one at a time, each after a back-off that doubles with the source's failures
  (``BASE_DELAY_S`` up to ``MAX_DELAY_S``, forgotten ``FORGET_S`` after the last one), with at most
  ``MAX_WAITING`` waiting; more are answered at once, unchecked (``refused``). A key's secret is
  guessed from one address at the pace it always was: only in the lane, after one first check;
- a credential that has not failed from that source (its label: an API key's id) is checked at once,
  one check at a time per credential, without waiting in the lane (``check``): a valid key is not held
  up by other clients' failures at its address. Once it fails there, it waits in the lane too;
- a join token is checked the same way, its label being the token's public part (which run it names,
  bench/session.token_label): a token whose label names a run is compared at once the first time from
  an address; after a wrong secret for that run it waits in the lane, so guessing a run's secret is as
  slow as guessing a key's. A token whose label names no run is a failure found without a check
  (``failed``): answered after its turn in the lane, or at once when the lane is full. So a right token
  is held up only by someone at its address who knows its run's label and guesses its secret.

Only checks that hash pass through ``check`` (ApiKeyStore.check_fast answers the rest: a key verified
before, an unknown id, and they are only ``record``ed); a logged-in admin's calls never do.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

LOGIN_THREADS = 2
MAX_WAITING = 4
BASE_DELAY_S = 0.05
MAX_DELAY_S = 2.0
FORGET_S = 300.0
MAX_SOURCES = 10_000  # lanes (and as many credentials' states) remembered; idle ones are dropped beyond

T = TypeVar("T")


@dataclass
class _Queue:
    """A lane (one source) or one credential at one source: one at a time, a bounded wait, its failures."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiting: int = 0
    failures: int = 0
    last_failure: float = 0.0

    def failed_recently(self) -> bool:
        if self.failures and time.monotonic() - self.last_failure > FORGET_S:
            self.failures = 0
        return self.failures > 0


class LoginGate:
    def __init__(self, *, threads: int = LOGIN_THREADS, max_waiting: int = MAX_WAITING,
                 base_delay: float = BASE_DELAY_S, max_delay: float = MAX_DELAY_S):
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="tengig-login")
        self.max_waiting = max_waiting
        self.base_delay, self.max_delay = base_delay, max_delay
        self._lanes: dict[str, _Queue] = {}
        self._credentials: dict[tuple[str, Hashable], _Queue] = {}
        self.verified = 0   # checks that ran
        self.refused = 0    # attempts answered at once, unchecked, because too many were waiting
        self.delayed = 0    # attempts that waited their turn in their source's lane

    async def check(self, source: str, label: Hashable, verify: Callable[..., T | None], *args: Any) -> T | None:
        """``verify(*args)`` in the login pool, or None (refused) if too many are waiting: at once if the
        credential ``label`` has not failed from ``source``, else after its turn in the source's lane."""
        credential = self._queue(self._credentials, (source, label))
        if credential.waiting >= self.max_waiting:
            self.refused += 1
            return None
        credential.waiting += 1
        try:
            async with credential.lock:
                if not credential.failed_recently():
                    return await self._verify(source, label, verify, args)
                lane = self._queue(self._lanes, source)
                if lane.waiting >= self.max_waiting:
                    self.refused += 1
                    return None
                async with self._turn(lane):
                    return await self._verify(source, label, verify, args)
        finally:
            credential.waiting -= 1

    async def failed(self, source: str) -> None:
        """A failure already known (a wrong join token): counted, and answered after its turn in the
        source's lane, or at once when the lane is full."""
        lane = self._queue(self._lanes, source)
        if lane.waiting >= self.max_waiting:
            self.refused += 1
        else:
            async with self._turn(lane):
                pass
        self.record(source, None, ok=False)

    def record(self, source: str, label: Hashable | None, *, ok: bool) -> None:
        """Count a failure from ``source`` (of the credential ``label``, if it names one), or clear the
        credential's failures after a success (the source's own stay until forgotten)."""
        credential = self._credentials.get((source, label)) if label is not None else None
        if ok:
            if credential is not None:
                credential.failures = 0
            return
        now = time.monotonic()
        queues = [self._queue(self._lanes, source)]
        if label is not None:
            queues.append(self._queue(self._credentials, (source, label)))
        for queue in queues:
            queue.failures += 1
            queue.last_failure = now

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def _verify(self, source: str, label: Hashable, verify: Callable[..., T | None], args: tuple) -> T | None:
        self.verified += 1
        result = await asyncio.get_running_loop().run_in_executor(self._pool, verify, *args)
        self.record(source, label, ok=result is not None)
        return result

    @asynccontextmanager
    async def _turn(self, lane: _Queue) -> AsyncIterator[None]:
        """Wait in ``lane`` (one at a time, each after the back-off of its failures); held while inside."""
        lane.waiting += 1
        self.delayed += 1
        try:
            async with lane.lock:
                if lane.failed_recently():
                    await asyncio.sleep(min(self.max_delay, self.base_delay * 2 ** min(lane.failures - 1, 16)))
                yield
        finally:
            lane.waiting -= 1

    def _queue(self, queues: dict, key: Any) -> _Queue:
        queue = queues.get(key)
        if queue is None:
            if len(queues) >= MAX_SOURCES:
                for idle in [k for k, q in queues.items() if not q.waiting]:
                    del queues[idle]
            queue = queues[key] = _Queue()
        return queue
