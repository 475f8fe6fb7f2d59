"""``@api_method`` and ``@job``: how a service method declares itself, with middlewared's names and
rules (docs/truenas-api.md §1), checked when the module is imported, as middlewared checks them.

    @api_method(TenGigResultsGetArgs, TenGigResultsGetResult, roles=["READONLY_ADMIN"])
    def get(self, id): ...

    @api_method(TenGigBenchRunArgs, TenGigBenchRunResult, roles=["FULL_ADMIN"])
    @job(lock=lambda params: f"bench:{params[0]['pool']}", lock_queue_size=0, abortable=True)
    def run(self, job, request): ...

The decorators only attach a spec to the function (no wrapper): the host reads it, validates the
params, and calls the function itself, so a sync body can run in a thread and an async one on the loop.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

# middlewared's built-in roles that tengig's methods may name (a plugin cannot add roles; docs/truenas-api.md §1).
# A subset of truenas/middleware src/middlewared/middlewared/role.py (ROLES dict, checked on master of
# 2026-08 and 25.10): extend it from there, never invent one. plugin_conformance checks against it too.
BUILTIN_ROLES = frozenset({
    "FULL_ADMIN", "READONLY_ADMIN", "SHARING_ADMIN",
    "NETWORK_INTERFACE_READ", "NETWORK_INTERFACE_WRITE", "NETWORK_GENERAL_READ", "NETWORK_GENERAL_WRITE",
    "DATASET_READ", "DATASET_WRITE", "DATASET_DELETE", "POOL_READ", "POOL_WRITE",
    "SHARING_SMB_READ", "SHARING_SMB_WRITE", "SHARING_READ", "SHARING_WRITE",
    "REPORTING_READ", "SYSTEM_GENERAL_READ",
})
DEFAULT_LOCK_QUEUE_SIZE = 5  # middlewared's default

_API_ATTR = "__tengig_api_method__"
_JOB_ATTR = "__tengig_job__"


@dataclass(frozen=True)
class JobOptions:
    """How a job method is scheduled. ``lock`` is a name or a callable of the validated params (a list
    of plain JSON values, defaults filled in); jobs with the same lock name run one at a time. With
    ``lock_queue_size`` N, at most N wait behind the running one (more: the call answers the last
    waiting job's id, as middlewared does); 0 refuses a second one at once with EBUSY."""

    lock: str | Callable[[list[Any]], str | None] | None = None
    lock_queue_size: int | None = DEFAULT_LOCK_QUEUE_SIZE
    abortable: bool = False
    description: Callable[..., str] | None = None
    transient: bool = False


@dataclass(frozen=True)
class ApiMethodSpec:
    accepts: type[BaseModel]
    returns: type[BaseModel]
    roles: tuple[str, ...]
    authentication_required: bool
    authorization_required: bool
    pass_app: bool
    rate_limit: bool = True


def api_method(
    accepts: type[BaseModel],
    returns: type[BaseModel],
    *,
    roles: Sequence[str] | None = None,
    authentication_required: bool = True,
    authorization_required: bool = True,
    pass_app: bool = False,
    rate_limit: bool = True,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a public method: its params model (fields in positional order), its result model
    (exactly one field, ``result``), and the built-in roles that may call it.

    ``authentication_required=False`` lets an unauthenticated session call it (auth.login_ex, core.ping);
    ``authorization_required=False`` lets any authenticated session call it whatever its roles (core.subscribe);
    ``pass_app=True`` hands the calling session to the method (host methods such as core.subscribe);
    ``rate_limit=False`` exempts a method that needs no login from middlewared's per-address limit of
    unauthenticated calls (a joined desktop polls tengig.bench.session.next)."""
    for model, what in ((accepts, "accepts"), (returns, "returns")):
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise TypeError(f"api_method {what} must be a pydantic model class, got {model!r}")
    if list(returns.model_fields) != ["result"]:
        raise TypeError(f"{returns.__name__} must have exactly one field, 'result' (has {list(returns.model_fields)})")
    unknown = sorted(set(roles or ()) - BUILTIN_ROLES)
    if unknown:
        raise ValueError(f"roles {unknown} are not middlewared built-in roles; a plugin cannot add roles")
    if authentication_required and authorization_required and not roles:
        raise ValueError("a method that needs authorization must name the built-in roles that may call it")

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, _API_ATTR, ApiMethodSpec(
            accepts, returns, tuple(roles or ()), authentication_required, authorization_required, pass_app,
            rate_limit,
        ))
        return fn

    return decorate


def job(
    lock: str | Callable[[list[Any]], str | None] | None = None,
    lock_queue_size: int | None = DEFAULT_LOCK_QUEUE_SIZE,
    *,
    abortable: bool = False,
    description: Callable[..., str] | None = None,
    transient: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a method a job: the innermost decorator; the function takes ``(self, job, *params)``."""
    if lock_queue_size is not None and lock_queue_size < 0:
        raise ValueError("lock_queue_size must be None or >= 0")

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        if hasattr(fn, _API_ATTR):
            raise TypeError(f"@job must be the innermost decorator (below @api_method) on {fn.__qualname__}")
        parameters = list(inspect.signature(fn).parameters)
        if parameters[:2] != ["self", "job"]:
            raise TypeError(f"job method {fn.__qualname__} must take (self, job, ...), takes ({', '.join(parameters)})")
        setattr(fn, _JOB_ATTR, JobOptions(lock, lock_queue_size, abortable, description, transient))
        return fn

    return decorate


def method_spec(fn: Callable[..., Any]) -> ApiMethodSpec | None:
    return getattr(fn, _API_ATTR, None)


def job_options(fn: Callable[..., Any]) -> JobOptions | None:
    return getattr(fn, _JOB_ATTR, None)
