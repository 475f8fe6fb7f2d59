"""tengig.bench: the benchmark suite as abortable jobs with progress (one per pool at a time: EBUSY).

Where it measures is the request's ``system``, resolved by the service's seams (``self.seams.bench_system``,
tengig.systems' resolver unless its host gives another): this machine when it is the NAS, the lab only
when named. The job's progress carries the latest live sample
(phase, bytes/s) in `extra`, for the panel's chart."""
from __future__ import annotations

from typing import Any

from ...bench.run.record import run_and_record
from ...bench.run.suite import BenchRunRequest
from ...desk.kit import DEFAULT_OUT, how_to_run, make_kit
from ...results import ResultStore
from ...errors import ValidationError
from ...systems import describe_systems
from ...systems.resolve import offer_the_lab
from ..decorators import api_method, job
from ..job_callbacks import cancel_event, progress_callback
from ..exceptions import api_errors
from ..models.bench import (
    TenGigBenchKitArgs, TenGigBenchKitRequest, TenGigBenchKitResult, TenGigBenchNetworkArgs, TenGigBenchNetworkResult,
    TenGigBenchPoolArgs, TenGigBenchPoolResult, TenGigBenchRequest, TenGigBenchRunArgs, TenGigBenchRunRequest,
    TenGigBenchRunResult, TenGigBenchSmbArgs, TenGigBenchSmbResult, TenGigBenchSystemsArgs, TenGigBenchSystemsResult,
)
from ..params import typed
from ..service import Service



def _pool_lock(params: list[Any]) -> str:
    request = params[0] if params and isinstance(params[0], dict) else {}
    return f"tengig.bench:{request.get('pool') or 'default'}"


class TenGigBenchService(Service):
    """Measure pool, network and SMB and judge them against a target disk."""

    class Config:
        namespace = "tengig.bench"
        cli_namespace = "tengig.bench"

    def _run(self, job, request: TenGigBenchRequest, kind: str) -> dict[str, Any]:
        cancel = cancel_event(job)  # the runner kills the running tool; cleanup still runs
        with api_errors(prefix="request"):
            system = self.seams.bench_system(request.system, request.pool)
            req = BenchRunRequest(**request.model_dump(exclude={"system", "pool", "kind"}), kind=kind)
            store = ResultStore()
            try:
                run_id, report = run_and_record(
                    system, req, store, cancel=cancel,
                    progress=progress_callback(job),
                    live=lambda sample: job.set_progress(extra=sample),
                )
            except ValidationError as exc:
                raise offer_the_lab(exc) if request.system is None else exc
        verdict = report.verdict
        return {"run_id": run_id, "summary": verdict.summary if verdict else "", "report": report.model_dump(mode="json"),
                "verdict": verdict.model_dump(mode="json") if verdict else None}

    @api_method(TenGigBenchSystemsArgs, TenGigBenchSystemsResult, roles=["READONLY_ADMIN"])
    def systems(self) -> list[dict[str, Any]]:
        """Where a benchmark can run now (local, truenas, lab), each with the reason, and whether desktops
        join a run there (system local: they join through this API, on either host)."""
        return [{**s, "joins": s["name"] == "local"} for s in describe_systems()]

    @api_method(TenGigBenchKitArgs, TenGigBenchKitResult, roles=["FULL_ADMIN"])
    def kit(self, request: TenGigBenchKitRequest | dict[str, Any]) -> dict[str, Any]:
        """The join script for a desktop without tengig (Windows: PowerShell with iperf3.exe and robocopy); for
        wss://, it trusts the certificate this NAS presents at request.nas, read from there now."""
        request = typed(TenGigBenchKitRequest, request, "request")
        with api_errors(prefix="request"):
            text = make_kit(os_name=request.os, nas=request.nas, token=request.token, share=request.share)
            how = how_to_run(DEFAULT_OUT, request.nas, request.share)
        return {"filename": DEFAULT_OUT, "text": text, "how": how}

    @api_method(TenGigBenchRunArgs, TenGigBenchRunResult, roles=["FULL_ADMIN"])
    @job(lock=_pool_lock, lock_queue_size=0, abortable=True)
    def run(self, job, request: TenGigBenchRunRequest | dict[str, Any]) -> dict[str, Any]:
        """Measure what `request.kind` says (default all: pool, network, SMB), then the verdict."""
        request = typed(TenGigBenchRunRequest, request, "request")
        return self._run(job, request, request.kind)

    @api_method(TenGigBenchPoolArgs, TenGigBenchPoolResult, roles=["FULL_ADMIN"])
    @job(lock=_pool_lock, lock_queue_size=0, abortable=True)
    def pool(self, job, request: TenGigBenchRequest | dict[str, Any]) -> dict[str, Any]:
        """fio on a scratch dataset of the pool (removed afterwards), then the verdict."""
        return self._run(job, typed(TenGigBenchRequest, request, "request"), "pool")

    @api_method(TenGigBenchNetworkArgs, TenGigBenchNetworkResult, roles=["FULL_ADMIN"])
    @job(lock=_pool_lock, lock_queue_size=0, abortable=True)
    def network(self, job, request: TenGigBenchRequest | dict[str, Any]) -> dict[str, Any]:
        """iperf3 over each client's link, 1 and N streams, both directions, then the verdict."""
        return self._run(job, typed(TenGigBenchRequest, request, "request"), "net")

    @api_method(TenGigBenchSmbArgs, TenGigBenchSmbResult, roles=["FULL_ADMIN"])
    @job(lock=_pool_lock, lock_queue_size=0, abortable=True)
    def smb(self, job, request: TenGigBenchRequest | dict[str, Any]) -> dict[str, Any]:
        """smbclient copies to and from the share on each client, then the verdict."""
        return self._run(job, typed(TenGigBenchRequest, request, "request"), "smb")


SERVICE = TenGigBenchService
