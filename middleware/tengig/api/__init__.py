"""The API face of tengig: services declared the way a middlewared plugin declares them, and a small
host core that runs them without middlewared.

Declaring (what a service module holds; see services/results.py)::

    class TenGigResultsService(Service):
        class Config:
            namespace = "tengig.results"
            cli_namespace = "tengig.results"

        @api_method(TenGigResultsGetArgs, TenGigResultsGetResult, roles=["READONLY_ADMIN"])
        def get(self, id):                      # params arrive validated, as plain values
            with api_errors():                  # tengig.errors -> CallError / ValidationErrors
                return self._store.get(id)

    class TenGigBenchService(Service):
        ...
        @api_method(TenGigBenchRunArgs, TenGigBenchRunResult, roles=["FULL_ADMIN"])
        @job(lock=lambda params: f"bench:{params[0]['pool']}", lock_queue_size=0, abortable=True)
        def run(self, job, request):            # sync: runs in a thread
            job.on_abort(kill_children)         # optional: for an external process
            return run_suite(request, progress=job.set_progress, should_abort=lambda: job.aborted)

Registering: one module in services/ (``SERVICE = TheClass``) and its name in
services.SERVICE_MODULES; models in models/<topic>.py (names checked when the class is defined).

Layers: decorators.py, service.py (declaring) -> registry.py (collecting) -> params.py (validating),
jobs.py + job_manager.py (running jobs), host.py (the transport-free core), exceptions.py (errors).
tengig.server adds JSON-RPC 2.0 over websocket, sessions, auth and events around host.Middleware.

The seam for the middlewared plugin (written later, outside this package): for each service class,
generate a middlewared Service subclass with the same Config whose methods call ours, with
``@api_method(Args, Result, roles=...)`` from middlewared using our models (set each model's
``__module__`` to start with ``middlewared.api.``, docs/truenas-api.md §1) and ``@job(...)`` with the same
JobOptions. It must
  - pass middlewared's Job through an adapter offering set_progress, aborted, check_aborted, on_abort
    (middlewared 26+ has job.aborted_event; on 25.10 abort only cancels coroutine jobs, so the
    adapter cannot see an abort of a thread job: document that limit to users);
  - re-raise our CallError / ValidationErrors as middlewared's (same attributes) and JobAborted as
    its JobCancelledException (26+) or asyncio.CancelledError;
  - call ``translate()`` on any other tengig error that escapes a body.
Nothing here imports middlewared, aiohttp or the server.
"""
from .decorators import JobOptions, api_method, job
from .exceptions import (
    ENOTAUTHENTICATED, CallError, JobAborted, ValidationErrors, api_errors, errname, translate,
)
from .jobs import Job, JobState
from .registry import MethodEntry, Registry
from .service import Service

__all__ = [
    "ENOTAUTHENTICATED", "CallError", "Job", "JobAborted", "JobOptions", "JobState", "MethodEntry", "Registry",
    "Service", "ValidationErrors", "api_errors", "api_method", "errname", "job", "translate",
]
