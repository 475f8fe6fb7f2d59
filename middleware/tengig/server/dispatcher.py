"""The call pipeline for one text frame: parse, find the method, admit it under the session's call
limit, authenticate, run it through the host core, and answer with middlewared's exact shapes:

    -32700 bad JSON            -32600 not a request         -32601 "Method does not exist"
    -32602 "Invalid params"    data.extra = [[field path, message, errno], ...]
    -32001 "Method call error" data.error = errno, data.errname, data.reason
    -32000 too many concurrent calls on this connection
    -32603 "Internal error"    a bug in tengig (logged with its traceback; never expected)

A job method answers at once with its id (legacy_jobs, the default) or, with legacy_jobs false, when
it ends: its result, or the error it failed with (an aborted job: -32001 ECANCELED, where middlewared
answers null).
"""
from __future__ import annotations

import asyncio
import errno
import logging
from typing import Any

from ..api.exceptions import ENOTAUTHENTICATED, CallError, ValidationErrors, translate
from ..api.host import Middleware
from ..api.jobs import Job, JobState
from ..api.params import dump_result
from ..api.registry import MethodEntry
from . import rpc
from .host_marks import INLINE_ATTR
from .session import Session, TooManyCalls

logger = logging.getLogger(__name__)


class Dispatcher:
    def __init__(self, middleware: Middleware):
        self.middleware = middleware
        self._tasks: dict[str, set[asyncio.Task[None]]] = {}

    def handle_frame(self, session: Session, text: str | bytes) -> asyncio.Task[None] | None:
        """Start handling one frame (on the loop); returns the call's task, None if answered at once."""
        try:
            request = rpc.parse_request(text)
        except rpc.BadFrame as bad:
            session.send(bad.answer)
            return None
        return self.handle_request(session, request)

    def handle_request(self, session: Session, request: rpc.Request) -> asyncio.Task[None] | None:
        """Start one parsed request (any wire protocol: the legacy /websocket one builds these too)."""
        entry = self.middleware.methods.get(request.method)
        if entry is None:
            if request.id is not rpc.NO_ID:
                session.send(rpc.error(request.id, rpc.METHOD_NOT_FOUND, "Method does not exist"))
            return None
        if request.params == [] and getattr(entry.function, INLINE_ATTR, False) and self._inline(session, request, entry):
            return None
        task = asyncio.ensure_future(self._process(session, request, entry))
        tasks = self._tasks.setdefault(session.id, set())
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return task

    def _inline(self, session: Session, request: rpc.Request, entry: MethodEntry) -> bool:
        """Run a never-waiting host method right here (no task); False if it waited after all."""
        if entry.spec.authentication_required and not session.authenticated:
            return False  # the normal path answers ENOTAUTHENTICATED
        coroutine = entry.function()
        try:
            coroutine.send(None)
        except StopIteration as done:
            if request.id is not rpc.NO_ID:
                session.send(rpc.success(request.id, dump_result(entry.spec.returns, done.value)))
            return True
        except Exception as exc:
            if request.id is not rpc.NO_ID:
                session.send(self._error_reply(request, exc))
            return True
        coroutine.close()
        logger.error("%s is marked inline but waited; run as a normal call", entry.name)
        return False

    def close_session(self, session: Session) -> None:
        """The connection is gone: its calls stop waiting (jobs it started go on)."""
        session.closed = True
        session.closing()
        for task in self._tasks.pop(session.id, set()):
            task.cancel()

    async def _process(self, session: Session, request: rpc.Request, entry: MethodEntry) -> None:
        answer = request.id is not rpc.NO_ID
        try:
            async with session.limit:
                result = await self._call(session, request, entry)
        except asyncio.CancelledError:
            return  # the connection closed: nobody to answer
        except TooManyCalls as exc:
            reply = rpc.error(request.id, rpc.TOO_MANY_CONCURRENT_CALLS, str(exc))
        except Exception as exc:
            reply = self._error_reply(request, exc)
        else:
            reply = rpc.success(request.id, result)
        if answer:
            session.send(reply)

    async def _call(self, session: Session, request: rpc.Request, entry: MethodEntry) -> Any:
        if entry.spec.authentication_required and not session.authenticated:
            raise CallError("Not authenticated", ENOTAUTHENTICATED)
        # Every authenticated session here is an administrator (API key or root on the unix socket):
        # roles matter under middlewared, where the same methods carry them.
        outcome = await self.middleware.invoke(
            entry, request.params, app=session,
            message_id=None if request.id is rpc.NO_ID else request.id,
            credentials=session.credentials.dump() if session.credentials else None,
        )
        if not isinstance(outcome, Job):
            return outcome
        if session.legacy_jobs:
            return outcome.id
        job = await self.middleware.wait_job(outcome)
        return job_outcome(job)

    def _error_reply(self, request: rpc.Request, exc: Exception) -> dict[str, Any]:
        api_error = translate(exc)
        if isinstance(api_error, ValidationErrors):
            return rpc.error(request.id, rpc.INVALID_PARAMS, "Invalid params",
                             rpc.truenas_error(errno.EINVAL, str(api_error), [list(e) for e in api_error]))
        if isinstance(api_error, CallError):
            return rpc.error(request.id, rpc.CALL_ERROR, "Method call error",
                             rpc.truenas_error(api_error.errno, str(api_error), api_error.extra))
        logger.exception("internal error in %s", request.method)
        return rpc.error(request.id, rpc.INTERNAL_ERROR, "Internal error",
                         rpc.truenas_error(errno.EFAULT, f"internal error in {request.method}: {type(exc).__name__}"))


def job_outcome(job: Job) -> Any:
    """A finished job's result, or the exception it ended with (re-raised for the caller)."""
    if job.state == JobState.SUCCESS:
        return job.result
    if job.state == JobState.ABORTED:
        raise CallError(f"Job {job.id} ({job.method}) was aborted", errno.ECANCELED)
    raise job.failure if job.failure is not None else CallError(job.error or "job failed")
