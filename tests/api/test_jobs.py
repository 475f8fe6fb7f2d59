"""JobManager on its own (no server): events, locks and queueing, abort of waiting, sync and async
jobs, the abort hook, progress rules."""
from __future__ import annotations

import asyncio
import errno
import threading
import time

import pytest

from tengig.api.decorators import JobOptions
from tengig.api.exceptions import CallError
from tengig.api.job_manager import JobManager
from tengig.api.jobs import JobState


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 20))


class Recorder:
    def __init__(self):
        self.events: list[tuple[str, int, str, int]] = []

    def __call__(self, msg, job_id, fields):
        self.events.append((msg, job_id, fields["state"], fields["progress"]["percent"]))


def test_sync_job_events_and_result():
    recorder = Recorder()

    async def scenario():
        manager = JobManager(recorder)

        def body(job):
            job.set_progress(50, "half")
            job.set_progress(50.9, "half")  # same integer percent and text: no event
            return "done"
        job = manager.submit("t.sync", JobOptions(), [], body, is_async=False)
        await manager.wait(job)
        return job
    job = run(scenario())
    assert job.state == JobState.SUCCESS and job.result == "done"
    assert recorder.events == [("ADDED", 1, "WAITING", 0), ("CHANGED", 1, "RUNNING", 0),
                               ("CHANGED", 1, "RUNNING", 50), ("CHANGED", 1, "SUCCESS", 100),
                               ("CHANGED", 1, "SUCCESS", 100)]


def test_same_lock_runs_one_at_a_time_in_order_and_queue_merges():
    order: list[str] = []

    async def scenario():
        manager = JobManager(lambda *a: None)
        options = JobOptions(lock="pool:tank", lock_queue_size=2)

        def body(name):
            def run_body(job):
                order.append(f"start {name}")
                time.sleep(0.05)
                order.append(f"end {name}")
                return name
            return run_body
        jobs = [manager.submit("t.lock", options, [], body(n), is_async=False) for n in "abc"]
        merged = manager.submit("t.lock", options, [], body("d"), is_async=False, message_id=9)
        for j in jobs:
            await manager.wait(j)
        return jobs, merged
    jobs, merged = run(scenario())
    assert order == ["start a", "end a", "start b", "end b", "start c", "end c"]
    assert merged is jobs[2] and 9 in merged.message_ids  # a runs, b and c wait: d joins c


def test_lock_queue_size_zero_refuses_with_ebusy_and_callable_lock_names():
    async def scenario():
        manager = JobManager(lambda *a: None)
        options = JobOptions(lock=lambda params: f"pool:{params[0]}", lock_queue_size=0, abortable=True)

        def hold(job):
            while not job.aborted:
                time.sleep(0.01)
        first = manager.submit("t.hold", options, ["tank"], hold, is_async=False)
        with pytest.raises(CallError) as busy:
            manager.submit("t.hold", options, ["tank"], hold, is_async=False)
        other = manager.submit("t.hold", options, ["other"], hold, is_async=False)
        for j in (first, other):
            manager.abort(j.id)
            await manager.wait(j)
        return busy.value, first, other
    busy, first, other = run(scenario())
    assert busy.errno == errno.EBUSY and first.state == other.state == JobState.ABORTED


def test_abort_of_a_waiting_job_and_refusal_for_a_non_abortable_running_one():
    async def scenario():
        manager = JobManager(lambda *a: None)
        release = threading.Event()
        running = manager.submit("t.block", JobOptions(lock="l"), [], lambda job: release.wait(5), is_async=False)
        waiting = manager.submit("t.block", JobOptions(lock="l"), [], lambda job: None, is_async=False)
        await asyncio.sleep(0.05)
        manager.abort(waiting.id)
        await manager.wait(waiting)
        with pytest.raises(CallError) as refused:
            manager.abort(running.id)
        release.set()
        await manager.wait(running)
        return running, waiting, refused.value
    running, waiting, refused = run(scenario())
    assert waiting.state == JobState.ABORTED and running.state == JobState.SUCCESS
    assert refused.errno == errno.EOPNOTSUPP


def test_abort_hook_runs_once_and_async_jobs_are_cancelled():
    hooks: list[str] = []

    async def scenario():
        manager = JobManager(lambda *a: None)

        def sync_body(job):
            stop = threading.Event()
            job.on_abort(lambda: hooks.append("kill"))
            job.on_abort(stop.set)
            stop.wait(10)
            job.check_aborted()

        async def async_body(job):
            await asyncio.sleep(30)
        a = manager.submit("t.sync", JobOptions(abortable=True), [], sync_body, is_async=False)
        b = manager.submit("t.async", JobOptions(abortable=True), [], async_body, is_async=True)
        await asyncio.sleep(0.05)
        for j in (a, b, a):
            manager.abort(j.id)
        await manager.wait(a)
        await manager.wait(b)
        late: list[str] = []
        a.on_abort(lambda: late.append("at once"))
        return a, b, late
    a, b, late = run(scenario())
    assert a.state == b.state == JobState.ABORTED and hooks == ["kill"] and late == ["at once"]


def test_failure_keeps_errno_and_progress_extra_must_be_json():
    async def scenario():
        manager = JobManager(lambda *a: None)

        def body(job):
            with pytest.raises(TypeError, match="plain JSON"):
                job.set_progress(10, "x", {"when": object()})
            raise CallError("disk full", errno.ENOSPC)
        job = manager.submit("t.fail", JobOptions(), [], body, is_async=False)
        await manager.wait(job)
        return job.encode()
    fields = run(scenario())
    assert fields["state"] == "FAILED" and fields["exc_info"]["errno"] == errno.ENOSPC
    assert fields["error"] == "[ENOSPC] disk full" and "Traceback" in fields["exception"]
    assert fields["time_finished"]["$date"] >= fields["time_started"]["$date"]
