"""tengig.lagg: thin face over tengig.lagg (pure planner, validation, renderer, analysis) and the
backends that apply it (Linux bond here; TrueNAS through its API)."""
from __future__ import annotations

from typing import Any

from ...backends.linux.bond import apply_bond, bonding_support
from ...bench.context import BenchContext
from ...errors import ValidationError
from ...lagg import analyse, plan_lagg, render
from ...lagg.apply_truenas import apply_lagg_truenas, bonding_here
from ...bench.join.join_wait import joined_session
from ...lagg.joined import check_counters_readable, check_join_options, check_members, client_ports, verify_joined
from ...lagg.measure import choose_endpoints, verify_on
from ...runner import Runner
from ...systems.resolve import refuse_iproute2_on_truenas
from ..checkins import confirm, waiter
from ..decorators import api_method, job
from ..exceptions import api_errors
from ..job_callbacks import cancel_event, progress_callback
from ..models.lagg import (
    TenGigLaggAnalyseArgs, TenGigLaggAnalyseResult, TenGigLaggApplyArgs, TenGigLaggApplyOptions, TenGigLaggApplyResult,
    TenGigLaggCheckinArgs, TenGigLaggCheckinResult, TenGigLaggPlanArgs, TenGigLaggPlanResult, TenGigLaggValidateArgs,
    TenGigLaggValidateResult, TenGigLaggVerifyArgs, TenGigLaggVerifyOptions, TenGigLaggVerifyResult,
)
from ..params import typed
from ..service import Service


# What a caller on a TrueNAS does instead of system local (the refusal says it)
THROUGH_TRUENAS = ("system: truenas (its interface.create, with TrueNAS's rollback), with the tengig plugin in its "
                   "middlewared (tengig plugin install): midclt call -j tengig.lagg.apply REQUEST "
                   "'{\"system\": \"truenas\", \"probe_address\": \"PEER\"}'")


class TenGigLaggService(Service):
    """Link aggregation that knows seeds 001/002: members across cards, honest per-direction estimates.
    A TrueNAS apply proves the new LAGG answers with ``self.seams.lagg_probe`` (a ping through it from
    where tengig runs: on the NAS); verify measures on ``self.seams.lagg_system()`` (the lab)."""

    class Config:
        namespace = "tengig.lagg"
        cli_namespace = "tengig.lagg"

    @api_method(TenGigLaggPlanArgs, TenGigLaggPlanResult, roles=["READONLY_ADMIN"])
    def plan(self, request: dict[str, Any]):
        """Protocol, members, hash policy, MTU, expected throughput per direction, alternatives, notes."""
        with api_errors(prefix="request"):
            return plan_lagg(request)

    @api_method(TenGigLaggValidateArgs, TenGigLaggValidateResult, roles=["READONLY_ADMIN"])
    def validate(self, request: dict[str, Any]):
        """TrueNAS's own checks (member in use, own config, protocol for the platform) and tengig's."""
        with api_errors(prefix="request"):
            plan = plan_lagg(request)
            return {"plan": plan, "rendered": render(plan)}

    @api_method(TenGigLaggApplyArgs, TenGigLaggApplyResult, roles=["NETWORK_INTERFACE_WRITE"])
    @job(lock="tengig.lagg", lock_queue_size=0)
    def apply(self, job, request: dict[str, Any], options: TenGigLaggApplyOptions | dict[str, Any] | None = None):
        """Create the LAGG. Linux: iproute2 bond, refused plainly where the kernel has no bonding driver."""
        options = typed(TenGigLaggApplyOptions, options, "options")
        if options.system == "local":
            with api_errors():
                refuse_iproute2_on_truenas(self.seams.truenas_here(), field="options.system",
                                           instead=THROUGH_TRUENAS)
        with api_errors(prefix="request"):
            plan = plan_lagg(request)
        if options.system == "truenas":
            return self._apply_truenas(job, plan, options)
        with api_errors(prefix="request"):
            if plan.platform != "linux":
                raise ValidationError.one("platform", f"system 'local' applies Linux plans; this plan is for "
                                          f"{plan.platform} (render it with tengig.lagg.validate)")
            job.set_progress(10, "checking the kernel's bonding driver")
            support = bonding_support()
            ran = apply_bond(render(plan), Runner(), support=support)
        job.set_progress(100, f"{plan.name} created")
        return {"name": plan.name, "ran": ran, "api_calls": []}

    def _apply_truenas(self, job, plan, options: TenGigLaggApplyOptions):
        with api_errors(prefix="options"):
            if not options.probe_address:
                raise ValidationError.one("probe_address", "name an address that must answer over the new LAGG: "
                                          "without a probe nothing proves the change is safe to keep")
        cancel = cancel_event(job)
        await_checkin = waiter(job, "tengig.lagg", options, cancel)
        probe = self.seams.lagg_probe(plan.name, options.probe_address)
        with api_errors(), self.seams.truenas(job) as backend:
            # where tengig runs on the TrueNAS, its kernel says why a bond TrueNAS could not create is missing
            on_the_nas = self.seams.truenas_here() is not None
            result = apply_lagg_truenas(plan, backend, probe, checkin_timeout=options.checkin_timeout,
                                        confirm_session_interface=options.confirm_session_interface,
                                        progress=progress_callback(job), cancel=cancel,
                                        await_checkin=await_checkin,
                                        kernel_reason=bonding_here if on_the_nas else None)
        return {"name": result.name, "ran": [], "api_calls": result.api_calls}

    @api_method(TenGigLaggCheckinArgs, TenGigLaggCheckinResult, roles=["NETWORK_INTERFACE_WRITE"])
    def checkin(self):
        """Confirm the LAGG apply that waits for it (wait_for_checkin): TrueNAS gets interface.checkin."""
        with api_errors():
            return confirm("tengig.lagg")

    @api_method(TenGigLaggVerifyArgs, TenGigLaggVerifyResult, roles=["FULL_ADMIN"])
    @job(lock="tengig.lagg", lock_queue_size=0, abortable=True)
    def verify(self, job, request: dict[str, Any], options: TenGigLaggVerifyOptions | dict[str, Any] | None = None):
        """iperf3 with 1 and N flows both ways to the LAGG, member byte counters around each test, against the plan."""
        options = typed(TenGigLaggVerifyOptions, options, "options")
        cancel = cancel_event(job)
        with api_errors(prefix="request"):
            plan = plan_lagg(request)
        if options.join is not None or options.system != "lab":
            return self._verify_joined(job, plan, options, cancel)
        with api_errors(prefix="options"):
            # The lab, the one system whose far end tengig can drive (seams.lagg_system)
            system = self.seams.lagg_system()
            endpoints = choose_endpoints(system, plan, client=options.client, lagg_address=options.lagg_address,
                                         client_address=options.client_address)
        ctx = BenchContext(system.hosts, progress=progress_callback(job), cancel=cancel,
                           live=lambda sample: job.set_progress(extra=sample))
        with api_errors(prefix="request"):
            return verify_on(system, plan, ctx, endpoints, seconds=options.seconds, omit=options.omit)

    def _verify_joined(self, job, plan, options: TenGigLaggVerifyOptions, cancel):
        """On the NAS tengig runs on, with the desktops that join (lagg/joined.py)."""
        with api_errors(prefix="options"):
            check_join_options(options)
            nas, hosts = self.seams.joined_nas(options.system, self.seams.truenas_here())
            host_os = self.seams.host_os()
            check_counters_readable(host_os.name)
        ctx = BenchContext(hosts, progress=progress_callback(job), cancel=cancel,
                           live=lambda sample: job.set_progress(extra=sample))
        with api_errors(prefix="request"):
            emulated = check_members(ctx, plan, nas, host_os.port_bytes)  # before anyone joins
        with api_errors(prefix="options"), joined_session(ctx, options.join, join_timeout=options.join_timeout) as (
                session, clients):
            ports = client_ports(ctx, plan, nas, clients)
            with api_errors(prefix="request"):
                return verify_joined(ctx, plan, session, clients, nas, port_bytes=host_os.port_bytes,
                                     emulated=emulated, ports=ports,
                                     streams=options.streams or plan.flows, seconds=options.seconds,
                                     omit=options.omit)

    @api_method(TenGigLaggAnalyseArgs, TenGigLaggAnalyseResult, roles=["READONLY_ADMIN"])
    def analyse(self, request: dict[str, Any], measurements: dict[str, Any]):
        """Throughput and member counters measured elsewhere, against the plan: shares, hash skew, the reason."""
        with api_errors(prefix="request"):
            plan = plan_lagg(request)
        with api_errors(prefix="measurements"):
            return analyse(plan, measurements)


SERVICE = TenGigLaggService
