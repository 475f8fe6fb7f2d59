"""tengig's public methods in-process (the host core `tengig serve` runs, without HTTP): call a method,
run a job to its end, or drive a scenario that talks to a running job (a checkin while it counts
down). Job events are kept in `events`, as core.get_jobs publishes them."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tengig.api import Registry
from tengig.api.host import Middleware
from tengig.api.jobs import JobState
from tengig.systems.seams import Seams


class InProcessApi:
    """``seams``: where the services act (tengig.systems.seams); the real ones unless a test gives its own."""

    def __init__(self, seams: Seams | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.events: list[tuple[Any, ...]] = []
        self.middleware = Middleware(Registry.default(seams=seams), lambda *event: self.events.append(event))

    def call(self, name: str, *params: Any) -> Any:
        return self.loop.run_until_complete(self.middleware.call(name, *params))

    def run_job(self, name: str, *params: Any, timeout: float = 30) -> Any:
        """Start a job and wait for its end (any state); the Job, for its state, result and error."""
        async def go():
            return await self.middleware.wait_job(await self.middleware.call(name, *params))
        return self.loop.run_until_complete(asyncio.wait_for(go(), timeout))

    def run(self, scenario, timeout: float = 60) -> Any:
        """Run a coroutine (a scenario using self.middleware) to its end."""
        return self.loop.run_until_complete(asyncio.wait_for(scenario, timeout))

    def close(self) -> None:
        self.loop.close()


def checkin_of(job) -> dict[str, Any]:
    """The job's progress.extra.checkin, or {} when it has none."""
    return ((job.encode().get("progress") or {}).get("extra") or {}).get("checkin") or {}


async def until_waiting_for_checkin(job, timeout: float = 30) -> dict[str, Any]:
    """Poll a running apply job until it counts down for a checkin; its checkin progress then."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not checkin_of(job).get("waiting"):
        assert job.state in (JobState.WAITING, JobState.RUNNING), job.error
        if loop.time() > deadline:
            pytest.fail(f"the job never waited for a checkin: {job.encode()}")
        await asyncio.sleep(0.1)
    return checkin_of(job)
