"""Runs jobs: ids, locks, queueing, abort, and the ``core.get_jobs`` events (ADDED, then CHANGED on
every state or progress change), with middlewared's scheduling rules:

- jobs with the same lock name run one at a time, in the order they were submitted;
- ``lock_queue_size=0``: a second job on a busy lock is refused at once (CallError EBUSY);
- ``lock_queue_size=N``: at most N wait; one more gets the last waiting job instead (its id/result);
- a sync body runs in a thread, an async one on the loop (abort cancels it);
- at most ``max_kept`` jobs are remembered; the oldest finished ones are forgotten first.

Stricter than middlewared in one place: for ``lock_queue_size=0`` a *waiting* job on the lock counts
as busy too, so two calls in the same instant cannot both pass the check.
"""
from __future__ import annotations

import asyncio
import errno
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .decorators import JobOptions
from .exceptions import CallError, JobAborted, translate
from .jobs import Job, JobState

logger = logging.getLogger(__name__)

JOBS_EVENT = "core.get_jobs"
# (event type "ADDED"|"CHANGED", job id, job dict); called on the loop thread.
JobPublisher = Callable[[str, int, dict[str, Any]], None]
JobBody = Callable[[Job], Any]  # sync (runs in a thread) or returning an awaitable


class JobManager:
    def __init__(self, publish: JobPublisher, *, max_kept: int = 1000, max_threads: int = 32):
        self._publish = publish
        self._max_kept = max_kept
        self._jobs: OrderedDict[int, Job] = OrderedDict()
        self._next_id = 1
        self._locks: dict[str, asyncio.Lock] = {}
        self._lock_users: dict[str, int] = {}  # jobs holding or waiting for each lock: free it at 0
        self._body_tasks: dict[int, asyncio.Task[Any]] = {}  # async bodies, cancelled on abort
        self._runners: dict[int, asyncio.Task[None]] = {}
        self._finished: dict[int, asyncio.Event] = {}
        self._executor = ThreadPoolExecutor(max_workers=max_threads, thread_name_prefix="tengig-job")
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- submitting ---------------------------------------------------------------------------------

    def submit(
        self,
        method: str,
        options: JobOptions,
        params: list[Any],
        body: JobBody,
        *,
        is_async: bool,
        arguments: list[Any] | None = None,
        message_id: Any = None,
        credentials: dict[str, Any] | None = None,
    ) -> Job:
        """Queue a job (must be called on the loop). ``params`` (validated) feed the lock and
        description callables; ``arguments`` (default: params) is what the job dict shows.

        Returns the new job, or the already-waiting job it was merged into (lock_queue_size reached).
        Raises CallError EBUSY for lock_queue_size=0 on a busy lock."""
        self._loop = asyncio.get_running_loop()
        lock_name = _lock_name(options, params)
        if lock_name is not None and options.lock_queue_size is not None:
            same_lock = [j for j in self._jobs.values() if j.lock_name == lock_name and not j.finished]
            if options.lock_queue_size == 0 and same_lock:
                raise CallError(
                    f"This job is already being performed (job {same_lock[0].id}, {same_lock[0].method}, "
                    f"holds lock {lock_name!r}); wait for it or abort it", errno.EBUSY,
                )
            # Jobs on one lock run in submission order: the first holds it (or is about to), the rest wait.
            waiting = same_lock[1:]
            if options.lock_queue_size and len(waiting) >= options.lock_queue_size:
                merged = waiting[-1]
                if message_id is not None:
                    merged.message_ids.append(message_id)
                return merged
        job = Job(
            self._next_id, method, list(params if arguments is None else arguments), options, lock_name=lock_name, message_id=message_id,
            credentials=credentials, description=_description(options, params),
            on_progress=self._progress_from_any_thread,
        )
        self._next_id += 1
        self._remember(job)
        self._finished[job.id] = asyncio.Event()
        self._publish("ADDED", job.id, job.encode())
        runner = asyncio.ensure_future(self._run(job, body, is_async))
        runner.add_done_callback(lambda _: self._runner_done(job))
        self._runners[job.id] = runner
        return job

    # -- looking up, waiting, aborting --------------------------------------------------------------

    def get(self, job_id: int) -> Job:
        try:
            return self._jobs[job_id]
        except KeyError:
            raise CallError(f"Job with id {job_id} does not exist", errno.ENOENT) from None

    def all(self) -> list[Job]:
        return list(self._jobs.values())

    async def wait(self, job: Job) -> Job:
        event = self._finished.get(job.id)
        if event is not None:
            await event.wait()
        return job

    def abort(self, job_id: int) -> None:
        """Ask a job to stop. A waiting job ends ABORTED at once; a running one when its body stops.
        Refused (EOPNOTSUPP) for a running job not declared abortable: nothing in it would listen."""
        job = self.get(job_id)
        if job.finished:
            return
        if job.state == JobState.RUNNING and not job.options.abortable:
            raise CallError(f"Job {job_id} ({job.method}) is not abortable", errno.EOPNOTSUPP)
        job.request_abort()
        self._cancel_if_cancellable(job)

    async def shutdown(self, grace_seconds: float) -> list[Job]:
        """Abort every unfinished job and wait up to ``grace_seconds`` for them; returns those still
        running then (sync bodies that ignored the abort)."""
        for job in list(self._jobs.values()):
            if not job.finished:
                job.request_abort()
                self._cancel_if_cancellable(job)
        runners = [t for t in self._runners.values() if not t.done()]
        if runners:
            await asyncio.wait(runners, timeout=grace_seconds)
        self._executor.shutdown(wait=False, cancel_futures=True)
        return [job for job in self._jobs.values() if not job.finished]

    def _cancel_if_cancellable(self, job: Job) -> None:
        """A job waiting for its lock, or an async body, stops by cancellation; a sync body cannot be
        cancelled (it is a thread) and stops when it sees ``job.aborted`` or its abort hooks fire."""
        if job.id in self._body_tasks:
            self._body_tasks[job.id].cancel()
        elif job.state == JobState.WAITING and job.id in self._runners:
            self._runners[job.id].cancel()

    # -- running ------------------------------------------------------------------------------------

    async def _run(self, job: Job, body: JobBody, is_async: bool) -> None:
        lock = None
        if job.lock_name is not None:
            lock = self._locks.setdefault(job.lock_name, asyncio.Lock())
            self._lock_users[job.lock_name] = self._lock_users.get(job.lock_name, 0) + 1
        acquired = False
        try:
            if lock is not None:
                await lock.acquire()
                acquired = True
            if job.aborted:
                job.finish_aborted()
                return
            job.state = JobState.RUNNING
            self._publish("CHANGED", job.id, job.encode())
            await self._run_body(job, body, is_async)
        except asyncio.CancelledError:
            pass  # cancelled while waiting for its lock (abort or shutdown): _runner_done ends it ABORTED
        finally:
            if acquired:
                lock.release()
            if job.lock_name is not None:
                self._lock_users[job.lock_name] -= 1
                if not self._lock_users[job.lock_name]:  # dynamic lock names must not pile up
                    del self._lock_users[job.lock_name], self._locks[job.lock_name]

    def _runner_done(self, job: Job) -> None:
        """Every job ends here, even one whose runner was cancelled before it ever started."""
        if not job.finished:
            job.finish_aborted()
        self._runners.pop(job.id, None)
        if (event := self._finished.get(job.id)) is not None:
            event.set()
        self._publish("CHANGED", job.id, job.encode())

    async def _run_body(self, job: Job, body: JobBody, is_async: bool) -> None:
        loop = asyncio.get_running_loop()
        if is_async:
            task = asyncio.ensure_future(_as_awaitable(body, job))
            self._body_tasks[job.id] = task
            try:
                await asyncio.wait({task})
            finally:
                self._body_tasks.pop(job.id, None)
            outcome = _outcome(task)
        else:
            future = loop.run_in_executor(self._executor, body, job)
            while not future.done():
                try:
                    await asyncio.wait({future})  # never raises the body's error, never cancels it
                except asyncio.CancelledError:
                    # Our runner is being cancelled (shutdown): a thread cannot be cancelled, so we keep
                    # waiting for the body to honour the abort, holding the lock until it does.
                    job.request_abort()
            outcome = _outcome(future)
        if job.aborted:
            # Asked to stop: however the body ended (JobAborted, its killed program's error, or an
            # early return after polling job.aborted), the job did not do all it was asked.
            job.finish_aborted()
        elif isinstance(outcome, BaseException):
            if isinstance(outcome, (asyncio.CancelledError, JobAborted)):
                job.finish_aborted()
            else:
                job.finish_failed(translate(outcome) or outcome)
        else:
            job.finish_success(outcome)
            if job.progress["percent"] != 100:
                job.set_progress(100, "")

    def _progress_from_any_thread(self, job: Job, snapshot: dict[str, Any]) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._publish, "CHANGED", job.id, snapshot)
        except RuntimeError:  # the loop closed between the check and the call (shutdown)
            pass

    def _remember(self, job: Job) -> None:
        self._jobs[job.id] = job
        while len(self._jobs) > self._max_kept:
            oldest = next((j for j in self._jobs.values() if j.finished), None)
            if oldest is None:
                logger.warning("%d jobs are waiting or running; none can be forgotten", len(self._jobs))
                return
            del self._jobs[oldest.id]
            self._finished.pop(oldest.id, None)


def _lock_name(options: JobOptions, params: list[Any]) -> str | None:
    if not callable(options.lock):
        return options.lock
    try:
        return options.lock(params)
    except Exception as exc:
        raise CallError(f"Error handling job lock ({exc}); check the call's arguments", errno.EINVAL) from exc


def _description(options: JobOptions, params: list[Any]) -> str | None:
    if options.description is None:
        return None
    try:
        return options.description(*params)
    except Exception:
        logger.exception("job description callable failed")
        return None


async def _as_awaitable(body: JobBody, job: Job) -> Any:
    result = body(job)
    if isinstance(result, Awaitable):
        result = await result
    return result


def _outcome(future: "asyncio.Future[Any]") -> Any:
    """The result, or the exception (CancelledError included) as a value."""
    if future.cancelled():
        return asyncio.CancelledError()
    exc = future.exception()
    return exc if exc is not None else future.result()
