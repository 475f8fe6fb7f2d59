"""The core every host shares: services bound to it, params validated, sync bodies in threads,
jobs handed to the JobManager. Transport-free: tengig's JSON-RPC server (tengig.server) puts
sessions, authentication and the wire format around it; a middlewared plugin wrapper uses
middlewared's own core instead and only needs the services, their specs and tengig.api.exceptions.

Services reach each other through it as under middlewared: ``await self.middleware.call(name, ...)``
in async code, ``self.middleware.call_sync(name, ...)`` from a sync body running in a thread.
"""
from __future__ import annotations

import asyncio
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .exceptions import CallError, ENOMETHOD
from .job_manager import JobManager, JobPublisher
from .jobs import Job
from .params import accept_params, dump_result
from .registry import MethodEntry, Registry

CALL_THREADS = 20  # sync non-job calls; jobs have their own threads (JobManager)


class Middleware:
    def __init__(self, registry: Registry, publish_job_event: JobPublisher, *, max_jobs_kept: int = 1000):
        self.jobs = JobManager(publish_job_event, max_kept=max_jobs_kept)
        self.methods: dict[str, MethodEntry] = registry.bind(self)
        self._executor = ThreadPoolExecutor(max_workers=CALL_THREADS, thread_name_prefix="tengig-call")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    def method(self, name: str) -> MethodEntry:
        try:
            return self.methods[name]
        except KeyError:
            raise CallError(f"Method {name!r} not found", ENOMETHOD) from None

    async def invoke(
        self,
        entry: MethodEntry,
        params: list[Any],
        *,
        app: Any = None,
        message_id: Any = None,
        credentials: dict[str, Any] | None = None,
    ) -> Any:
        """Validate ``params`` and run the method. A plain method returns its result dumped through its
        Result model; a job method returns the Job at once (its result is dumped when it ends)."""
        self._remember_loop()
        args = accept_params(entry.spec.accepts, params)
        prepend = [app] if entry.spec.pass_app else []
        if entry.job is not None:
            return self.jobs.submit(
                entry.name, entry.job, args, _job_body(entry, prepend, args), is_async=entry.is_async,
                arguments=params, message_id=message_id, credentials=credentials,
            )
        if entry.is_async:
            result = await entry.function(*prepend, *args)
        else:
            loop = asyncio.get_running_loop()
            result = await loop.run_in_executor(self._executor, functools.partial(entry.function, *prepend, *args))
        return dump_result(entry.spec.returns, result)

    async def call(self, name: str, *params: Any) -> Any:
        """Service-to-service call (no session, no authorization): the result, or the Job of a job method."""
        return await self.invoke(self.method(name), list(params))

    def call_sync(self, name: str, *params: Any) -> Any:
        """``call`` from a sync body (a worker thread). Never from the event loop's own thread."""
        if self._loop is None:
            raise RuntimeError("call_sync before the host ran anything: no event loop to call into")
        if threading.get_ident() == self._loop_thread:
            raise RuntimeError("call_sync on the event loop would deadlock; use `await middleware.call(...)`")
        return asyncio.run_coroutine_threadsafe(self.call(name, *params), self._loop).result()

    async def wait_job(self, job: Job) -> Job:
        return await self.jobs.wait(job)

    async def shutdown(self, grace_seconds: float = 10.0) -> list[Job]:
        """Abort every job, wait up to ``grace_seconds``; returns the jobs still running then."""
        left = await self.jobs.shutdown(grace_seconds)
        self._executor.shutdown(wait=False, cancel_futures=True)
        return left

    def _remember_loop(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()


def _job_body(entry: MethodEntry, prepend: list[Any], args: list[Any]):
    """The job body: the method with (app?, job, *args), its result dumped through the Result model
    (a result that does not fit fails the job: that is a bug in the method, not in the call)."""
    returns = entry.spec.returns
    if entry.is_async:
        async def run_async(job: Job) -> Any:
            return dump_result(returns, await entry.function(*prepend, job, *args))
        return run_async

    def run_sync(job: Job) -> Any:
        return dump_result(returns, entry.function(*prepend, job, *args))
    return run_sync
