"""Link aggregation (LAGG / bond) for a NAS: plan it from the NIC inventory, render it for TrueNAS,
Linux or FreeBSD, and read a measurement against the plan. Pure functions; applying lives in the
backends (tengig.backends.linux.bond for Linux).

    plan = plan_lagg({"nics": [...], "platform": "truenas-scale", ...})   # LaggPlan or ValidationError
    render(plan)                                   # RenderedLagg: API calls, argv lists, rc.conf lines
    analyse(plan, {"results": [...], "counters": [...]})   # LaggVerdict: shares, skew, against the plan
"""
from .models import Alternative, ExpectedThroughput, LaggMember, LaggPlan, PlanNote, SkippedNic
from .planner import plan_lagg
from .render import FLAVOUR_BY_PLATFORM, RenderedLagg, merge_rc_block, render
from .request import LaggOptions, LaggRequest
from .verify import (
    CounterWindow, FlowResult, LaggVerdict, MemberBytes, VerifyRequest, analyse, counter_window,
)

__all__ = [
    "FLAVOUR_BY_PLATFORM",
    "Alternative",
    "CounterWindow",
    "FlowResult",
    "LaggVerdict",
    "MemberBytes",
    "RenderedLagg",
    "VerifyRequest",
    "analyse",
    "counter_window",
    "merge_rc_block",
    "render",
    "ExpectedThroughput",
    "LaggMember",
    "LaggOptions",
    "LaggPlan",
    "LaggRequest",
    "PlanNote",
    "SkippedNic",
    "plan_lagg",
]
