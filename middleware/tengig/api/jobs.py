"""A job as its body sees it, and as ``core.get_jobs`` shows it.

A body reports with ``job.set_progress(percent, description, extra=None)`` (thread-safe; an event
goes out only when something changed, percent rounded down to an integer as middlewared does) and
honours ``core.job_abort`` in one of two ways:

- cooperatively: call ``job.check_aborted()`` between steps (raises JobAborted) or poll ``job.aborted``
  and return early (an aborted job ends ABORTED however its body ends; a result is then dropped);
- for an external program: ``job.on_abort(proc.terminate)`` registers a hook that runs once, at the
  moment the abort is asked for, from the thread that asks. The body then sees its program die.

A sync body keeps its job RUNNING (and its lock held) until it really returns, so "aborted" never
means "still running in the background": the next job on the same pool waits for it.
"""
from __future__ import annotations

import json
import logging
import threading
import time
import traceback
from collections.abc import Callable
from enum import Enum
from typing import Any

from .decorators import JobOptions
from .exceptions import CallError, JobAborted, ValidationErrors

logger = logging.getLogger(__name__)

ProgressListener = Callable[["Job", dict[str, Any]], None]


class JobState(str, Enum):
    WAITING = "WAITING"
    RUNNING = "RUNNING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    ABORTED = "ABORTED"


FINISHED_STATES = (JobState.SUCCESS, JobState.FAILED, JobState.ABORTED)


class Job:
    """One call of a ``@job`` method. Bodies use set_progress, check_aborted, aborted, on_abort;
    everything else is the host's."""

    def __init__(
        self,
        job_id: int,
        method: str,
        arguments: list[Any],
        options: JobOptions,
        *,
        lock_name: str | None,
        message_id: Any = None,
        credentials: dict[str, Any] | None = None,
        description: str | None = None,
        on_progress: ProgressListener | None = None,
    ):
        self.id = job_id
        self.method = method
        self.arguments = arguments
        self.options = options
        self.lock_name = lock_name
        self.message_ids: list[Any] = [message_id] if message_id is not None else []
        self.credentials = credentials
        self.description = description
        self.state = JobState.WAITING
        self.result: Any = None
        self.error: str | None = None
        self.exception: str | None = None
        self.exc_info: dict[str, Any] | None = None
        self.failure: BaseException | None = None  # the translated exception, for a non-legacy answer
        self.time_started = time.time()
        self.time_finished: float | None = None
        self._progress: dict[str, Any] = {"percent": 0, "description": "", "extra": None}
        self._on_progress = on_progress
        self._guard = threading.Lock()  # progress and abort state are touched from job threads
        self._abort_requested = False
        self._abort_hooks: list[Callable[[], Any]] = []

    # -- for job bodies ---------------------------------------------------------------------------

    def set_progress(self, percent: float | None = None, description: str | None = None, extra: Any = None) -> None:
        """Only what is given changes; an event is sent when the (integer) percent, the description or
        extra changed."""
        with self._guard:
            changed = False
            if percent is not None:
                if isinstance(percent, bool) or not isinstance(percent, (int, float)):
                    raise TypeError(f"percent must be a number, got {type(percent).__name__}")
                whole = max(0, min(100, int(percent)))
                changed |= whole != self._progress["percent"]
                self._progress["percent"] = whole
            if description and description != self._progress["description"]:
                self._progress["description"] = str(description)
                changed = True
            if extra is not None and extra != self._progress["extra"]:
                _require_json(extra)
                self._progress["extra"] = extra
                changed = True
            snapshot = self.encode_locked() if changed else None
        if snapshot is not None and self._on_progress is not None:
            self._on_progress(self, snapshot)

    @property
    def aborted(self) -> bool:
        """True once core.job_abort asked this job to stop."""
        return self._abort_requested

    def check_aborted(self) -> None:
        """Raise JobAborted if an abort was asked for (the job then ends ABORTED, not FAILED)."""
        if self._abort_requested:
            raise JobAborted(f"job {self.id} ({self.method}) was aborted")

    def on_abort(self, hook: Callable[[], Any]) -> None:
        """Run ``hook`` once when an abort is asked for (at once if it already was): kill a child
        process, close a socket. It must be quick and must not raise (errors are logged)."""
        with self._guard:
            if not self._abort_requested:
                self._abort_hooks.append(hook)
                return
        _run_hook(self, hook)

    # -- for the host -----------------------------------------------------------------------------

    def request_abort(self) -> None:
        with self._guard:
            if self._abort_requested:
                return
            self._abort_requested = True
            hooks, self._abort_hooks = self._abort_hooks, []
        for hook in hooks:
            _run_hook(self, hook)

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_STATES

    def finish_success(self, result: Any) -> None:
        self.result = result
        self._finish(JobState.SUCCESS)

    def finish_aborted(self) -> None:
        self._finish(JobState.ABORTED)

    def finish_failed(self, exc: BaseException) -> None:
        """Keep the error as middlewared shows it: the text, the traceback, and exc_info with the
        errno and (for validation) the field paths."""
        self.error = str(exc)
        self.exception = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        if isinstance(exc, ValidationErrors):
            self.exc_info = {"type": "VALIDATION", "errno": None, "extra": [list(e) for e in exc], "repr": repr(exc)}
        elif isinstance(exc, CallError):
            self.exc_info = {"type": type(exc).__name__, "errno": exc.errno, "extra": exc.extra, "repr": repr(exc)}
        else:
            self.exc_info = {"type": type(exc).__name__, "errno": None, "extra": None, "repr": repr(exc)}
        self.failure = exc
        self._finish(JobState.FAILED)

    def _finish(self, state: JobState) -> None:
        self.state = state
        self.time_finished = time.time()

    def encode(self) -> dict[str, Any]:
        """The job dict of core.get_jobs and its events (middlewared's keys, JSON-ready)."""
        with self._guard:
            return self.encode_locked()

    def encode_locked(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "message_ids": list(self.message_ids),
            "method": self.method,
            "arguments": self.arguments,
            "transient": self.options.transient,
            "description": self.description,
            "abortable": self.options.abortable,
            "logs_path": None,
            "logs_excerpt": None,
            "progress": dict(self._progress),
            "result": self.result if self.state == JobState.SUCCESS else None,
            "result_encoding_error": None,
            "error": self.error,
            "exception": self.exception,
            "exc_info": self.exc_info,
            "state": self.state.value,
            "time_started": _ejson_date(self.time_started),
            "time_finished": _ejson_date(self.time_finished),
            "credentials": self.credentials,
        }

    @property
    def progress(self) -> dict[str, Any]:
        with self._guard:
            return dict(self._progress)


def _require_json(extra: Any) -> None:
    """Progress goes to every subscriber as JSON: refuse what cannot be sent, where it is set."""
    try:
        json.dumps(extra, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"progress extra must be plain JSON (dict, list, str, finite numbers): {exc}") from exc


def _run_hook(job: Job, hook: Callable[[], Any]) -> None:
    try:
        hook()
    except Exception:  # an abort must go on even if one hook fails
        logger.exception("abort hook of job %s (%s) failed", job.id, job.method)


def _ejson_date(epoch: float | None) -> dict[str, int] | None:
    """A datetime as middlewared's JSON encoder writes it: {"$date": milliseconds since the epoch}."""
    return None if epoch is None else {"$date": int(epoch * 1000)}
