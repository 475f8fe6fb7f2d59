"""core.*: the host's own methods (ping, options, events, jobs, introspection), as middlewared has them."""
from __future__ import annotations

import errno
import uuid
from typing import Any

from ..api.decorators import api_method, job
from ..api.exceptions import CallError
from ..api.filters import filter_list
from ..api.jobs import Job
from ..api.service import Service
from .dispatcher import job_outcome
from .events import EVENTS
from .host_marks import inline, raw_result
from .models import (
    CoreGetJobsArgs, CoreGetJobsResult, CoreGetMethodsArgs, CoreGetMethodsResult, CoreJobAbortArgs,
    CoreJobAbortResult, CoreJobWaitArgs, CoreJobWaitResult, CorePingArgs, CorePingResult, CoreSetOptionsArgs,
    CoreSetOptionsResult, CoreSubscribeArgs, CoreSubscribeResult, CoreUnsubscribeArgs, CoreUnsubscribeResult,
)


class CoreService(Service):
    class Config:
        namespace = "core"
        cli_namespace = "system.core"

    @api_method(CorePingArgs, CorePingResult, authentication_required=False)
    @inline
    async def ping(self) -> str:
        return "pong"

    @api_method(CoreSetOptionsArgs, CoreSetOptionsResult, authentication_required=False, pass_app=True)
    async def set_options(self, app: Any, options: dict[str, Any]) -> dict[str, bool]:
        """Session options; the official client sets legacy_jobs false on connect."""
        if options.get("legacy_jobs") is not None:
            app.legacy_jobs = options["legacy_jobs"]
        if options.get("private_methods") is not None:
            app.private_methods = options["private_methods"]
        return {"legacy_jobs": app.legacy_jobs, "private_methods": app.private_methods, "py_exceptions": False}

    @api_method(CoreSubscribeArgs, CoreSubscribeResult, authorization_required=False, pass_app=True)
    async def subscribe(self, app: Any, event: str) -> str:
        """Receive ``collection_update`` notifications for ``event`` ('*': every event)."""
        if event != "*" and event.split(":", 1)[0] not in EVENTS:
            raise CallError(f"unknown event {event!r}; known: {', '.join(EVENTS)} (or '*')", errno.ENOENT)
        ident = str(uuid.uuid4())
        app.subscriptions[ident] = event
        return ident

    @api_method(CoreUnsubscribeArgs, CoreUnsubscribeResult, authorization_required=False, pass_app=True)
    async def unsubscribe(self, app: Any, id_: str) -> None:
        app.subscriptions.pop(id_, None)

    @api_method(CoreGetJobsArgs, CoreGetJobsResult, authorization_required=False)
    async def get_jobs(self, filters: list[Any], options: dict[str, Any]) -> Any:
        """Jobs, filtered: [["state", "=", "RUNNING"]], [["id", "=", 3]], ..."""
        return filter_list([j.encode() for j in self.middleware.jobs.all()], filters, options)

    @api_method(CoreJobAbortArgs, CoreJobAbortResult, authorization_required=False)
    async def job_abort(self, id: int) -> None:
        self.middleware.jobs.abort(id)

    @api_method(CoreJobWaitArgs, CoreJobWaitResult, authorization_required=False)
    @job()
    async def job_wait(self, job: Job, id: int) -> Any:
        """A job that ends as job ``id`` ends: its result, or its error."""
        target = self.middleware.jobs.get(id)
        return job_outcome(await self.middleware.wait_job(target))

    @api_method(CoreGetMethodsArgs, CoreGetMethodsResult, authorization_required=False)
    @raw_result
    async def get_methods(self, service: str | None, target: str) -> Any:
        """Every method with middlewared's metadata: description, roles, job, and ``accepts``/``returns``
        as lists of per-argument JSON schemas (an authenticated session here may call them all).
        Built once, off the event loop; later calls answer the same cached text."""
        return await self.middleware.method_catalog(service)
