"""A test-only service that drives the protocol tests: jobs that count with progress, fail with a
chosen errno, hold a lock, run and kill a child process, and a plain call that is slow. Registered
with ``Registry.default(DemoJobsService)``; never part of tengig's own registry."""
from __future__ import annotations

import asyncio
import subprocess
import time
from typing import Any

from pydantic import Field

from tengig.api import CallError, Service, ValidationErrors, api_method, job
from tengig.api.models.base import ApiInput, ApiOutput


SLOW_CALLS = {"now": 0, "peak": 0}


class DemoCountOptions(ApiInput):
    steps: int = Field(3, ge=1, le=1000, description="How many progress steps.")
    seconds: float = Field(0.0, ge=0, le=30, description="Pause after each step, s.")


class DemoJobsCountArgs(ApiInput):
    options: DemoCountOptions = Field(default_factory=DemoCountOptions, description="Steps and pace.")


class DemoJobsCountResult(ApiOutput):
    result: int = Field(description="The number of steps counted.")


class DemoJobsFailArgs(ApiInput):
    errno: int = Field(description="The errno to fail with.")


class DemoJobsFailResult(ApiOutput):
    result: None = Field(description="Never returned.")


class DemoJobsHoldArgs(ApiInput):
    pool: str = Field(description="Lock key: one hold per pool at a time.")
    seconds: float = Field(10.0, ge=0, le=60, description="How long to hold unless aborted, s.")


class DemoJobsHoldResult(ApiOutput):
    result: str = Field(description="The pool held.")


class DemoJobsChildArgs(ApiInput):
    seconds: int = Field(30, ge=1, le=60, description="How long the child process sleeps, s.")


class DemoJobsChildResult(ApiOutput):
    result: int = Field(description="The child's exit code.")


class DemoJobsNapArgs(ApiInput):
    seconds: float = Field(1.0, ge=0, le=30, description="How long to sleep, s.")


class DemoJobsNapResult(ApiOutput):
    result: float = Field(description="The seconds slept.")


class DemoJobsSlowArgs(DemoJobsNapArgs):
    pass


class DemoJobsSlowResult(DemoJobsNapResult):
    pass


class DemoJobsRejectArgs(ApiInput):
    pass


class DemoJobsRejectResult(ApiOutput):
    result: None = Field(description="Never returned.")


class DemoJobsService(Service):
    class Config:
        namespace = "demo.jobs"
        cli_namespace = "demo.jobs"

    @api_method(DemoJobsCountArgs, DemoJobsCountResult, roles=["READONLY_ADMIN"])
    @job(abortable=True)
    def count(self, job: Any, options: dict[str, Any]) -> int:
        """Count to `steps`, reporting progress after each; stops at an abort."""
        for step in range(1, options["steps"] + 1):
            job.check_aborted()
            time.sleep(options["seconds"])
            job.set_progress(step * 100 / options["steps"], f"step {step}", {"step": step})
        return options["steps"]

    @api_method(DemoJobsFailArgs, DemoJobsFailResult, roles=["READONLY_ADMIN"])
    @job()
    def fail(self, job: Any, errno: int) -> None:
        job.set_progress(10, "about to fail")
        raise CallError("failing on purpose", errno)

    @api_method(DemoJobsHoldArgs, DemoJobsHoldResult, roles=["FULL_ADMIN"])
    @job(lock=lambda params: f"pool:{params[0]}", lock_queue_size=0, abortable=True)
    def hold(self, job: Any, pool: str, seconds: float) -> str:
        """Hold a pool's lock (like one benchmark per pool) until `seconds` pass or an abort."""
        deadline = time.monotonic() + seconds
        job.set_progress(1, f"holding {pool}")
        while time.monotonic() < deadline:
            job.check_aborted()
            time.sleep(0.02)
        return pool

    @api_method(DemoJobsChildArgs, DemoJobsChildResult, roles=["FULL_ADMIN"])
    @job(abortable=True)
    def child(self, job: Any, seconds: int) -> int:
        """Run an external program; an abort kills it through the job's abort hook."""
        proc = subprocess.Popen(["sleep", str(seconds)])
        job.on_abort(proc.terminate)
        job.set_progress(5, f"child {proc.pid} running", {"pid": proc.pid})
        code = proc.wait()
        job.check_aborted()
        return code

    @api_method(DemoJobsNapArgs, DemoJobsNapResult, roles=["READONLY_ADMIN"])
    @job(abortable=True)
    async def nap(self, job: Any, seconds: float) -> float:
        """An async job: an abort cancels it."""
        await asyncio.sleep(seconds)
        return seconds

    @api_method(DemoJobsSlowArgs, DemoJobsSlowResult, roles=["READONLY_ADMIN"])
    async def slow(self, seconds: float) -> float:
        """A plain (non-job) call that takes a while: fills a connection's call slots. ``SLOW_CALLS``
        counts how many run at once (now and at most)."""
        SLOW_CALLS["now"] += 1
        SLOW_CALLS["peak"] = max(SLOW_CALLS["peak"], SLOW_CALLS["now"])
        try:
            await asyncio.sleep(seconds)
        finally:
            SLOW_CALLS["now"] -= 1
        return seconds

    @api_method(DemoJobsRejectArgs, DemoJobsRejectResult, roles=["READONLY_ADMIN"])
    @job()
    def reject(self, job: Any) -> None:
        """A job whose body finds its input bad (after the params passed)."""
        raise ValidationErrors.one("reject.pool", "no such pool")
