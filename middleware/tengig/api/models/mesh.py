"""tengig.mesh: plan, render, apply and verify a switchless direct-attach mesh.

The request is the mesh planner's own input model (tengig.mesh.request: hosts, ports, existing
networks, options); plans are deterministic, so apply and verify take the request and plan again
rather than trusting a plan sent back by the caller."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...checkin import CHECKIN_TIMEOUT_S
from ...mesh.apply_linux import MeshApplyResult
from ...mesh.models import MeshPlan
from ...mesh.render import Flavour, RenderedConfig
from ...mesh.request import MeshRequest
from ...mesh.verify import MeshVerifyResult
from .base import ApiInput, ApiOutput

HOST_NAME = r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"
System = Literal["lab", "local"]
ApplySystem = Literal["lab", "local", "truenas"]


class TenGigMeshPlanArgs(ApiInput):
    request: MeshRequest = Field(description="Hosts with their free ports, networks to avoid, options.")


class TenGigMeshPlanResult(ApiOutput):
    result: MeshPlan = Field(description="Cables, subnets, addresses, hosts entries, labels, costs, diagram.")


class TenGigMeshRenderArgs(ApiInput):
    request: MeshRequest = Field(description="As tengig.mesh.plan.")
    host: str = Field(pattern=HOST_NAME, description="The plan host to render for.")
    flavour: Flavour | None = Field(None, description="Configuration system; null: the host kind's first flavour.")
    existing_hosts: str | list[str] | None = Field(
        None, description="The host's current hosts value (TrueNAS: network.configuration hosts; a file's text), "
        "so tengig's entries are merged into it and the user's kept.")


class TenGigMeshRenderResult(ApiOutput):
    result: RenderedConfig = Field(description="Files to install and/or TrueNAS API calls, with warnings.")


class TenGigMeshWhere(ApiInput):
    system: System = Field("lab", description="Where to act: 'lab' (the embedded lab's hosts) or 'local' "
                           "(this Linux machine, which must be named in `hosts`).")
    hosts: list[str] = Field(default_factory=list, max_length=256,
                             description="Plan hosts to act on (default: every plan host the system reaches).")


class TenGigMeshApplyOptions(TenGigMeshWhere):
    system: ApplySystem = Field("lab", description="Where to apply: 'lab' (the embedded lab's hosts), 'local' (this "
                                "Linux machine, named in `hosts`; refused on a TrueNAS, whose network only TrueNAS "
                                "changes) or 'truenas' (the TrueNAS: inside its middlewared that TrueNAS itself, "
                                "elsewhere the one TENGIG_TRUENAS_URL names; through its API with commit, a probe "
                                "from the NAS to each cable's far end, checkin and rollback; `hosts` names the one "
                                "plan host it is).")
    wait_for_checkin: bool = Field(False, description="Keep the change only if tengig.mesh.checkin confirms it "
                                   "within checkin_timeout (the panel's Confirm button, sent over the network just "
                                   "changed); otherwise every host is taken back. The job's progress.extra.checkin "
                                   "counts down while it waits.")
    checkin_timeout: int = Field(CHECKIN_TIMEOUT_S, ge=5, le=600, description="Seconds to wait for the confirmation (TrueNAS: "
                                 "its rollback timer, probe and confirmation within it).")
    confirm_session_interface: bool = Field(False, description="TrueNAS: allow changing the port this API session "
                                            "arrives on (it may cut the session; the rollback then restores it).")


class TenGigMeshApplyArgs(ApiInput):
    request: MeshRequest = Field(description="As tengig.mesh.plan: the plan is made again from it.")
    options: TenGigMeshApplyOptions = Field(default_factory=TenGigMeshApplyOptions, description="Where to apply.")


class TenGigMeshApplyResult(ApiOutput):
    result: list[MeshApplyResult] = Field(description="Per host: what changed (empty when it already matched).")


class TenGigMeshVerifyOptions(TenGigMeshWhere):
    measure_throughput: bool = Field(True, description="Also run the iperf3 matrix (every host to every peer).")
    seconds: int = Field(3, ge=1, le=60, description="iperf3 measured seconds per pair (after a 2 s warm-up).")
    min_percent: float = Field(90.0, gt=0, le=100, description="Share of each cable's goodput ceiling it must reach, %.")
    omit: int = Field(2, ge=0, le=10, description="Seconds of TCP ramp-up left out of each iperf3 test.")
    join: int | None = Field(None, ge=1, le=16, description="System 'local' (this machine: the one plan host `hosts` "
                             "names): peers to wait for, each joining with the token shown in progress.extra.session "
                             "(tengig client join URL --token T --name HOST, HOST its plan name); each runs iperf3 "
                             "over its cable to this host, both ways, checked against this host's own iperf3 server "
                             "and port counters; a cable between two peers is measured by the two of them (one "
                             "serves a one-test iperf3 on its end, the other connects), so with every peer joined "
                             "the matrix is n x (n-1); a cable to a peer that did not join is listed as not "
                             "measured.")
    join_timeout: int = Field(300, ge=10, le=3600, description="Seconds to wait for them to join.")


class TenGigMeshVerifyArgs(ApiInput):
    request: MeshRequest = Field(description="As tengig.mesh.plan.")
    options: TenGigMeshVerifyOptions = Field(default_factory=TenGigMeshVerifyOptions, description="Where and how.")


class TenGigMeshVerifyResult(ApiOutput):
    result: MeshVerifyResult = Field(description="Per link checks, the throughput matrix, asymmetric pairs, problems.")


__all__ = [n for n in dir() if n.startswith("TenGigMesh")] + ["ApiOutput"]


class TenGigMeshCheckinArgs(ApiInput):
    pass


class TenGigMeshCheckinResult(ApiOutput):
    result: bool = Field(description="true: the waiting apply was confirmed and keeps its change.")
