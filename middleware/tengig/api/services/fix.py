"""tengig.fix: the verdict's advice answered by a change of the NAS (tengig/fix): plan (read-only), apply (a job:
confirmed, measured again with the same desktops, kept only for a real gain) and undo. A fix acts on the NAS this
tengig runs on (system local), through TrueNAS's API there when it is a TrueNAS."""
from __future__ import annotations

from typing import Any

from ...bench.context import BenchContext
from ...bench.run.record import run_and_record
from ...checkin import CHECKIN_TIMEOUT_S
from ...errors import TengigError, ValidationError
from ...fix.apply import apply_fix, fix_view, kept_fixes, plan_now, precheck, succeeded_runs, undo_fixes
from ...fix.plan import plan_fixes
from ...fix.record import with_record
from ...fix.run_view import view_of
from ...fix.models import Platform
from ...fix.settings import Settings, settings_of
from ...fix.truenas_interface import TrueNasInterfaces, peers_of
from ...results import ResultStore
from ...results.models import RunRecord
from ..decorators import api_method, job
from ..exceptions import api_errors
from ..job_callbacks import cancel_event, progress_callback
from ..models.fix import (
    TenGigFixApplyArgs, TenGigFixApplyRequest, TenGigFixApplyResult, TenGigFixPlanArgs, TenGigFixPlanResult,
    TenGigFixQueryArgs, TenGigFixQueryResult, TenGigFixUndoArgs, TenGigFixUndoResult,
)
from ..params import typed
from ..service import Service

REMEASURE_SPAN = (5.0, 95.0)  # of the job's progress: the SMB copies again
STAGED_SPAN = (2.0, 5.0)  # a TrueNAS network change: staged, committed, probed, checked in


def _staged_progress(job: Any):
    """A staged TrueNAS change's steps (0-100) told in the job's STAGED_SPAN; None without a job."""
    if job is None:
        return None
    progress, (lo, hi) = progress_callback(job), STAGED_SPAN
    return lambda percent, description: progress(lo + (hi - lo) * percent / 100, description)


class TenGigFixService(Service):
    """Answer the verdict's advice with a change of the NAS, and prove it."""

    class Config:
        namespace = "tengig.fix"
        cli_namespace = "tengig.fix"

    def _network_owner(self) -> Platform | None:
        """'truenas' where this machine is a TrueNAS: its middlewared owns the ports, whatever the run recorded."""
        return "truenas" if self.seams.truenas_here() is not None else None

    def _where(self, run: RunRecord, field: str, job: Any = None,
               checkin_timeout: int = CHECKIN_TIMEOUT_S) -> tuple[Any, Settings]:
        """The bench system the run measured (this NAS) and its settings seam (a TrueNAS's ports through its
        interface.update, commit and checkin, probed with the run's desktops); refused for a run measured
        elsewhere."""
        results = run.results or {}
        if results.get("system") != "local":
            raise ValidationError.one(field, f"run {run.id} measured system {results.get('system')!r}: a fix changes "
                                      "the NAS tengig runs on; fix from a run of system local there")
        system = self.seams.bench_system("local", (results.get("pool") or {}).get("pool"))
        interfaces = None
        if self._network_owner() == "truenas":
            try:
                peers = peers_of(view_of(run).clients)
            except TengigError:
                peers = {}
            interfaces = TrueNasInterfaces(lambda: self.seams.truenas(job), self.seams.run_on_nas, peers,
                                           checkin_timeout=checkin_timeout, progress=_staged_progress(job))
        return system, settings_of(system, BenchContext(system.hosts), interfaces)

    @api_method(TenGigFixPlanArgs, TenGigFixPlanResult, roles=["READONLY_ADMIN"])
    def plan(self, run_id: int) -> dict[str, Any]:
        """The run's advice answered: each fix with its setting's value now and the SMB figure it predicts,
        and the advice that stays words. Changes nothing."""
        with api_errors():
            store = ResultStore()
            run = store.get(run_id)
            view = fix_view(run, succeeded_runs(store), self._network_owner())
            try:
                _, settings = self._where(run, "run_id")
            except TengigError:  # measured elsewhere: the values now are unknown
                return with_record(plan_fixes(view), store.fixes()).model_dump(mode="json")
            return plan_now(view, settings, store.fixes()).model_dump(mode="json")

    @api_method(TenGigFixApplyArgs, TenGigFixApplyResult, roles=["FULL_ADMIN"])
    @job(lock="tengig.fix", lock_queue_size=0, abortable=True)
    def apply(self, job, request: TenGigFixApplyRequest | dict[str, Any]) -> dict[str, Any]:
        """Apply one fix of the newest run on this NAS (request.confirm must be true), measure SMB again with the
        same desktops (they join again: the token is in progress.extra.session), keep it only for a gain beyond
        the run's own spread, else put the previous value back; both runs stored and linked."""
        request = typed(TenGigFixApplyRequest, request, "request")
        cancel, progress = cancel_event(job), progress_callback(job)
        lo, hi = REMEASURE_SPAN
        with api_errors(prefix="request"):
            store = ResultStore()
            precheck(store, request.run_id, request.fix, self._network_owner())
            system, settings = self._where(store.get(request.run_id), "run_id", job,
                                           request.checkin_timeout)

            def remeasure(req, on_joined=None):
                return run_and_record(system, req, store, cancel=cancel,
                                      progress=lambda p, d: progress(lo + (hi - lo) * p / 100, d),
                                      live=lambda sample: job.set_progress(extra=sample), on_joined=on_joined)

            outcome = apply_fix(store, settings, remeasure, request.run_id, request.fix, confirm=request.confirm,
                                join_timeout=request.join_timeout, force_busy=request.force_busy,
                                progress=progress, network_owner=self._network_owner())
        return outcome.model_dump(mode="json")

    @api_method(TenGigFixQueryArgs, TenGigFixQueryResult, roles=["READONLY_ADMIN"])
    def query(self, run_id: int | None = None) -> list[dict[str, Any]]:
        """The fixes made, newest first (of one run: made from it or measured by it), each linking the run it was
        made from and the run that measured it again, with its judgement. Reads the results database only."""
        with api_errors():
            store = ResultStore()
            if run_id is not None:
                store.get(run_id)  # a run that is not there says so
            return [fix_record(row) for row in store.fixes(run_id)]

    @api_method(TenGigFixUndoArgs, TenGigFixUndoResult, roles=["FULL_ADMIN"])
    def undo(self, run_id: int) -> list[str]:
        """Put back the value before every fix the run kept (refused, nothing changed, when someone changed the
        setting since)."""
        with api_errors():
            store = ResultStore()
            kept_fixes(store, run_id)
            _, settings = self._where(store.get(run_id), "run_id")
            return undo_fixes(store, settings, run_id)


def fix_record(row: dict[str, Any]) -> dict[str, Any]:
    """One row of the fixes table as the API publishes it: its links and state, and from its data the change,
    the value before it, the judgement and what an undo did."""
    data = row["data"]
    return {**{k: row[k] for k in ("id", "run_id", "after_run_id", "name", "state", "applied", "finished")},
            "fix": data["fix"], "previous": data["previous"], "gains": data.get("gains") or [],
            "why": data.get("why"), "undone": data.get("undone")}


SERVICE = TenGigFixService
