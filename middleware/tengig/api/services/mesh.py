"""tengig.mesh: thin face over tengig.mesh (pure planner and renderer) and its orchestration."""
from __future__ import annotations

from typing import Any

from ...errors import ValidationError
from ...mesh import plan_mesh, render_host
from ...mesh.apply_truenas import apply_truenas
from ...mesh.orchestrate import apply_mesh, hosts_to_act_on, verify_joined_on, verify_on
from ...mesh.request import MeshRequest
from ...mesh.systems import MeshSystem
from ...systems.resolve import refuse_iproute2_on_truenas
from ..checkins import confirm, waiter
from ..decorators import api_method, job
from ..exceptions import api_errors
from ..job_callbacks import cancel_event, progress_callback
from ..models.mesh import (
    TenGigMeshApplyArgs, TenGigMeshApplyOptions, TenGigMeshApplyResult, TenGigMeshCheckinArgs, TenGigMeshCheckinResult,
    TenGigMeshPlanArgs, TenGigMeshPlanResult, TenGigMeshRenderArgs, TenGigMeshRenderResult, TenGigMeshVerifyArgs,
    TenGigMeshVerifyOptions, TenGigMeshVerifyResult, TenGigMeshWhere,
)
from ..params import typed
from ..service import Service


# What a caller on a TrueNAS does instead of system local (the refusal says it)
THROUGH_TRUENAS = ("system: truenas, hosts: [the plan host this TrueNAS is], with the tengig plugin in its "
                   "middlewared (tengig plugin install): midclt call -j tengig.mesh.apply REQUEST "
                   "'{\"system\": \"truenas\", \"hosts\": [\"HOST\"]}'")


class TenGigMeshService(Service):
    """Switchless direct-attach meshes: plan, render, apply, verify. Where: ``self.seams.mesh_system``
    (system, hosts) for Linux and the lab; on a TrueNAS (``self.seams.truenas``), its API, with the pings
    that prove the change run by ``self.seams.run_on_nas`` (this machine: tengig runs on the NAS, as the
    plugin or its app). On a machine that is a TrueNAS, system local is refused: TrueNAS owns its network."""

    class Config:
        namespace = "tengig.mesh"
        cli_namespace = "tengig.mesh"

    @api_method(TenGigMeshPlanArgs, TenGigMeshPlanResult, roles=["READONLY_ADMIN"])
    def plan(self, request: dict[str, Any]):
        """Cables, subnets, addresses, hosts entries, labels, counts, cost, break-even and a diagram."""
        with api_errors(prefix="request"):
            return plan_mesh(request)

    @api_method(TenGigMeshRenderArgs, TenGigMeshRenderResult, roles=["READONLY_ADMIN"])
    def render(self, request: dict[str, Any], host: str, flavour: str | None = None,
               existing_hosts: str | list[str] | None = None):
        """One host's configuration: files (netplan, networkd, ifupdown, rc.conf, PowerShell) or TrueNAS calls."""
        with api_errors(prefix="request"):
            plan = plan_mesh(request)
        names = [h.name for h in plan.hosts]
        with api_errors():
            if host not in names:
                raise ValidationError.one("host", f"{host!r} is not a host of the plan ({', '.join(names)})")
            return render_host(plan, host, flavour, existing_hosts=existing_hosts)

    @api_method(TenGigMeshApplyArgs, TenGigMeshApplyResult, roles=["NETWORK_INTERFACE_WRITE"])
    @job(lock="tengig.mesh", lock_queue_size=0, abortable=True)
    def apply(self, job, request: dict[str, Any], options: TenGigMeshApplyOptions | dict[str, Any] | None = None):
        """Apply the plan on the chosen hosts: all of them change, or none (re-applying changes nothing)."""
        options = typed(TenGigMeshApplyOptions, options, "options")
        cancel = cancel_event(job)
        await_checkin = waiter(job, "tengig.mesh", options, cancel)
        if options.system == "truenas":
            return [self._apply_truenas(job, request, options, cancel, await_checkin)]
        if options.system == "local":
            with api_errors():
                refuse_iproute2_on_truenas(self.seams.truenas_here(), field="options.system",
                                           instead=THROUGH_TRUENAS)
        req, system, hosts = self._prepare(request, options)
        with api_errors(prefix="request"):
            return apply_mesh(system, req, hosts, cancel=cancel, progress=progress_callback(job),
                              await_checkin=await_checkin, checkin_timeout=options.checkin_timeout)

    def _apply_truenas(self, job, request, options: TenGigMeshApplyOptions, cancel, await_checkin):
        with api_errors(prefix="request"):
            plan = plan_mesh(request)
        names = [h.name for h in plan.hosts]
        hosts = options.hosts
        with api_errors(prefix="options"):
            if len(hosts) != 1 or hosts[0] not in names:
                raise ValidationError.one("hosts", f"with system 'truenas', name the one plan host the TrueNAS is "
                                          f"({', '.join(names)})")
            if not plan.host(hosts[0]).kind.startswith("truenas"):
                raise ValidationError.one("hosts.0", f"{hosts[0]} is a {plan.host(hosts[0]).kind} host in the plan; "
                                          "make it truenas-scale or truenas-core")
        with api_errors(), self.seams.truenas(job) as backend:
            return apply_truenas(plan, hosts[0], backend, self.seams.run_on_nas,
                                 checkin_timeout=options.checkin_timeout,
                                 confirm_session_interface=options.confirm_session_interface,
                                 progress=progress_callback(job), cancel=cancel,
                                 await_checkin=await_checkin)

    @api_method(TenGigMeshCheckinArgs, TenGigMeshCheckinResult, roles=["NETWORK_INTERFACE_WRITE"])
    def checkin(self):
        """Confirm the mesh apply that waits for it (wait_for_checkin): the change stays."""
        with api_errors():
            return confirm("tengig.mesh")

    @api_method(TenGigMeshVerifyArgs, TenGigMeshVerifyResult, roles=["READONLY_ADMIN"])
    @job(lock="tengig.mesh", lock_queue_size=0, abortable=True)
    def verify(self, job, request: dict[str, Any], options: TenGigMeshVerifyOptions | dict[str, Any] | None = None):
        """Ping, DF ping at MTU - 28, names, and the n x (n-1) iperf3 matrix against each cable's ceiling."""
        options = typed(TenGigMeshVerifyOptions, options, "options")
        cancel = cancel_event(job)
        if options.join is not None and options.system != "local":
            with api_errors(prefix="options"):
                raise ValidationError.one("system", "peers join the machine tengig runs on: use system 'local' with "
                                          "hosts naming the plan host it is")
        req, system, hosts = self._prepare(request, options)
        if options.join is not None:
            with api_errors(prefix="options"):
                return verify_joined_on(system, req, hosts, join=options.join, join_timeout=options.join_timeout,
                                        seconds=options.seconds, omit=options.omit, min_percent=options.min_percent,
                                        progress=progress_callback(job), cancel=cancel,
                                        live=lambda sample: job.set_progress(extra=sample))
        with api_errors(prefix="request"):
            return verify_on(system, req, hosts, cancel=cancel,
                             measure_throughput=options.measure_throughput, seconds=options.seconds,
                             min_percent=options.min_percent, omit=options.omit,
                             progress=progress_callback(job))

    def _prepare(self, request: dict[str, Any], options: TenGigMeshWhere) -> tuple[MeshRequest, MeshSystem, list[str]]:
        """The request, the system, and the hosts to act on (checked against plan and system)."""
        with api_errors(prefix="request"):
            req = MeshRequest.model_validate(request)
            plan = plan_mesh(req)
        with api_errors():
            system = self.seams.mesh_system(options.system, list(options.hosts))
            hosts = hosts_to_act_on(system, plan, options.hosts, "options.hosts")
        return req, system, hosts


SERVICE = TenGigMeshService
