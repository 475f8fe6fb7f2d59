"""tengig.lagg: plan, validate, apply and verify link aggregation (LAGG / bond)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...checkin import CHECKIN_TIMEOUT_S
from ...lagg.joined import JoinedLaggVerification
from ...lagg.measure import LaggVerification
from ...lagg.models import LaggPlan
from ...lagg.render import RenderedLagg
from ...lagg.request import LaggRequest
from ...lagg.verify import LaggVerdict, VerifyRequest
from .base import ApiInput, ApiOutput


class TenGigLaggPlanArgs(ApiInput):
    request: LaggRequest = Field(description="NIC inventory (tengig.nic.query), platform, topology, goal, options.")


class TenGigLaggPlanResult(ApiOutput):
    result: LaggPlan = Field(description="Protocol, members across cards, hash, MTU, expected throughput, alternatives.")


class TenGigLaggValidation(ApiOutput):
    plan: LaggPlan = Field(description="The plan the request gives (validation passed).")
    rendered: RenderedLagg = Field(description="What apply would do on the request's platform.")


class TenGigLaggValidateArgs(ApiInput):
    request: LaggRequest = Field(description="As tengig.lagg.plan.")


class TenGigLaggValidateResult(ApiOutput):
    result: TenGigLaggValidation = Field(description="The plan and what applying it would run; invalid requests "
                                         "fail with -32602 and TrueNAS-style field paths instead.")


class TenGigLaggApplyOptions(ApiInput):
    system: Literal["local", "truenas"] = Field("local", description="'local': this Linux machine (iproute2 bond; "
                                                "refused on a TrueNAS, whose network only TrueNAS changes); "
                                                "'truenas': the TrueNAS (inside its middlewared that TrueNAS "
                                                "itself, elsewhere the one TENGIG_TRUENAS_URL names), through its "
                                                "API with commit, a probe, checkin, and rollback when the bond "
                                                "never answers.")
    checkin_timeout: int = Field(CHECKIN_TIMEOUT_S, ge=5, le=600, description="TrueNAS: seconds before an unconfirmed change rolls back.")
    probe_address: str | None = Field(None, pattern=r"^\d{1,3}(\.\d{1,3}){3}$",
                                      description="TrueNAS: an address that must answer over the new LAGG (a peer or "
                                      "the gateway) before the change is kept; pinged from where tengig runs.")
    confirm_session_interface: bool = Field(False, description="TrueNAS: allow changing the port this API session "
                                            "arrives on (it may cut the session; the rollback then restores it).")
    wait_for_checkin: bool = Field(False, description="TrueNAS: after the probe answers, keep the change only if "
                                   "tengig.lagg.checkin confirms it before TrueNAS's timer ends (the panel's Confirm "
                                   "button, sent over the network just changed); progress.extra.checkin counts down.")


class TenGigLaggApplyArgs(ApiInput):
    request: LaggRequest = Field(description="As tengig.lagg.plan: planned again, then applied.")
    options: TenGigLaggApplyOptions = Field(default_factory=TenGigLaggApplyOptions, description="Where and how.")


class TenGigLaggApplied(ApiOutput):
    name: str = Field(description="The LAGG interface created.")
    ran: list[list[str]] = Field(description="Commands run (Linux) in order.")
    api_calls: list[str] = Field(description="TrueNAS methods called, in order.")


class TenGigLaggApplyResult(ApiOutput):
    result: TenGigLaggApplied = Field(description="What was done.")


class TenGigLaggVerifyOptions(ApiInput):
    system: Literal["lab", "local", "truenas"] = Field(
        "lab", description="'lab': the embedded lab drives both ends itself (client, addresses below). 'local': the "
        "NAS tengig runs on (the plugin, the app, tengig serve), with `join` desktops that join its run; 'truenas': "
        "the same where tengig runs on that TrueNAS.")
    join: int | None = Field(None, ge=1, le=16, description="Desktops to wait for (systems local and truenas): each "
                             "joins with the token shown in progress.extra.session (tengig client join URL --token "
                             "T, or the Windows kit) over an address on the LAGG, runs iperf3 alone (1 and N flows, "
                             "both ways), then all of them at once; the NAS checks every figure against its own "
                             "iperf3 server and its members' byte counters.")
    join_timeout: int = Field(300, ge=10, le=3600, description="Seconds to wait for them to join.")
    streams: int | None = Field(None, ge=1, le=64, description="With join: the N of each desktop's N-flow tests "
                                "(default: the plan's many-flow count).")
    client: str | None = Field(None, pattern=r"^[a-z][a-z0-9-]{0,30}$",
                               description="The host that runs the iperf3 client; default: the system's first client.")
    lagg_address: str | None = Field(None, pattern=r"^\d{1,3}(\.\d{1,3}){3}$",
                                     description="The NAS's address on the LAGG; default: the plan's address, else the "
                                     "NAS's address on the client's link (the lab has no bonding driver: there the "
                                     "members are the NAS's real ports and the counters show which carried the flows).")
    client_address: str | None = Field(None, pattern=r"^\d{1,3}(\.\d{1,3}){3}$",
                                       description="The client's address the tests are bound to; needed with lagg_address.")
    seconds: int = Field(5, ge=1, le=120, description="Measured seconds per test (4 tests: read/write x 1/N flows; "
                         "with join, 4 per desktop and 2 with all of them at once).")
    omit: int = Field(2, ge=0, le=10, description="Seconds of TCP ramp-up left out of each test.")


class TenGigLaggVerifyArgs(ApiInput):
    request: LaggRequest = Field(description="As tengig.lagg.plan (the expectation to compare with).")
    options: TenGigLaggVerifyOptions = Field(default_factory=TenGigLaggVerifyOptions, description="What to measure between.")


class TenGigLaggVerifyResult(ApiOutput):
    result: LaggVerification | JoinedLaggVerification = Field(
        description="What was measured and what it means: between a lab host and the lab's NAS, or (join) each "
        "joined desktop alone and all at once, with every member's byte counters.")


class TenGigLaggAnalyseArgs(ApiInput):
    request: LaggRequest = Field(description="As tengig.lagg.plan (the expectation to compare with).")
    measurements: VerifyRequest = Field(description="iperf3 results for 1 and N flows per direction, and member "
                                        "byte counters per test (ip -s -j link before/after), measured elsewhere.")


class TenGigLaggAnalyseResult(ApiOutput):
    result: LaggVerdict = Field(description="Per test: measured vs expected with the reason; per-member shares and skew.")


class TenGigLaggCheckinArgs(ApiInput):
    pass


class TenGigLaggCheckinResult(ApiOutput):
    result: bool = Field(description="true: the waiting apply was confirmed and keeps its change.")
