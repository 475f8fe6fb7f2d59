"""A run started and recorded: `run_suite` checks the request against the system and runs the suite, with
desktops that join (run/suite_joined.py) or the pool alone; `run_and_record` adds the results database:
the run, every raw tool output and the environment are stored; a failed or aborted run keeps its error
and raw outputs and never gets a number."""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from ...errors import Aborted, TengigError, ValidationError
from ...verdict.models import Target
from ...verdict.targets import find_target
from ..context import BenchContext, Progress
from .suite import SHARE_KINDS, BenchReport, BenchRunRequest, BenchSystem, judged_report, pool_step
from .suite_joined import run_joined


def _check_clients(system: BenchSystem, req: BenchRunRequest) -> None:
    """The network and SMB are measured with desktops that join the run; a system measured here names none."""
    joins = getattr(system, "accepts_joins", False)
    if req.clients:
        raise ValidationError.one("clients", f"{system.name} measures the network and SMB with desktops that join "
                                  "the run (`join: N`); name no clients")
    if req.join:
        if not joins:
            raise ValidationError.one("join", f"desktops join a run on the NAS itself (`system: \"local\"`), not on "
                                      f"{system.name}")
        if req.kind in SHARE_KINDS and not req.share:
            raise ValidationError.one("share", "name the SMB share joined clients copy to (`share: NAME`, a share of "
                                      "this NAS's Samba; a scratch directory in it is removed afterwards)")
    elif req.kind != "pool":  # a network or SMB run with nobody to measure from measures nothing
        hint = getattr(system, "clients_hint", "") or "`join: N` for how many desktops take part"
        raise ValidationError.one("join" if joins else "kind", f"{req.kind}: {system.name} has no desktop to "
                                  f"measure the network and SMB from; {hint}")


def run_suite(ctx: BenchContext, system: BenchSystem, req: BenchRunRequest,
              user_targets: Sequence[Target] = ()) -> BenchReport:
    target = find_target(req.target, user_targets)
    _check_clients(system, req)
    if req.join:
        return run_joined(ctx, system, req, target)
    pool = pool_step(ctx.part(0, 100), system, req, target, [])  # _check_clients: the pool alone
    return judged_report(ctx, system, req, target, pool, [], {}, None)


def run_and_record(system: BenchSystem, req: BenchRunRequest, store, *, progress: Progress | None = None,
                   cancel: threading.Event | None = None,
                   live: Callable[[dict[str, Any]], None] | None = None,
                   on_joined: Callable[[list[Any]], None] | None = None) -> tuple[int, BenchReport]:
    """run_suite, stored: (run id, report). Raises after recording a failed/aborted run. A system that runs
    the suite itself elsewhere (``run_recorded``: the lab's nas, over its API) records it there, in ``store``.
    ``on_joined``: called once the desktops asked for have joined, before anything is measured (BenchContext)."""
    delegate = getattr(system, "run_recorded", None)
    if delegate is not None:
        if on_joined is not None:
            raise TengigError("a run measured on another system cannot act on this one once its desktops joined")
        return delegate(req, store, progress=progress, cancel=cancel, live=live)
    user_targets = [Target.model_validate({**doc, "builtin": False}) for doc in store.user_targets()]
    find_target(req.target, user_targets)  # bad input fails before a run row exists
    _check_clients(system, req)
    ctx = BenchContext(system.hosts, progress=progress or (lambda p, d: None), cancel=cancel or threading.Event(),
                       live=live, on_joined=on_joined)
    run_id = store.start_run(req.kind, req, system.environment())
    try:
        report = run_suite(ctx, system, req, user_targets)
    except BaseException as exc:
        store.add_raws(run_id, ctx.raw)
        aborted = isinstance(exc, (Aborted, KeyboardInterrupt))
        store.finish_run(run_id, "aborted" if aborted else "failed", error=_error_text(exc))
        raise
    store.add_raws(run_id, ctx.raw)
    store.finish_run(run_id, "success", results=report.model_dump(mode="json"),
                     verdict=report.verdict)
    return run_id, report


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, TengigError):
        return exc.message
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    return f"{type(exc).__name__}: {exc}"
