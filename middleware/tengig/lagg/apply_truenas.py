"""Create a planned LAGG on a TrueNAS through its API, so that a mistake undoes itself: members whose
own config the plan clears are reset (`interface.delete` of their saved config), the LAGG is created
(`interface.create` LINK_AGGREGATION), all staged; `interface.commit` with rollback and a checkin
timeout; the probe ("does the new bond answer?", e.g. a ping to a peer over it) runs until it answers
or the time is up; `interface.checkin` only then. A bond that never answers is rolled back at once,
and if tengig dies in between TrueNAS rolls back by itself. A member carrying the caller's session is
refused unless confirmed, and TrueNAS's own validation errors keep their field paths
(`interface_create.lag_ports.N`). backends/truenas/staged_change.py does the steps.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from ..backends.truenas import NotCreated, ProbeResult, ProbeTarget, TrueNASBackend, apply_staged
from ..errors import ValidationError
from ..ping import ping_once
from ..runner import CancelToken, Completed
from .models import LaggPlan
from .render import render


class LaggApplyResult(BaseModel):
    name: str = Field(description="The LAGG interface.")
    changed: bool = Field(description="False when the TrueNAS already had this LAGG as planned.")
    api_calls: list[str] = Field(description="TrueNAS methods staged, in order (then commit and checkin).")


def ping_probe(name: str, address: str, run: Callable[[Sequence[str]], Completed]) -> Callable[[], ProbeResult]:
    """One ping (1 s) to `address` through the new LAGG `name`, run where the NAS is."""
    def probe() -> ProbeResult:
        ok, detail = ping_once(run, name, address)
        return ProbeResult(ok=ok, targets=[ProbeTarget(name=f"{name} -> {address}", ok=ok, detail=detail)])
    return probe


def bonding_here() -> str | None:
    """Why this machine's kernel cannot make a bond (None: it can), when tengig runs on the NAS itself."""
    from ..backends.linux.bond import bonding_support

    support = bonding_support()
    if support.supported:
        return None
    return f"this NAS's kernel ({support.kernel}) has no bonding driver ({support.explain()})"


def apply_lagg_truenas(plan: LaggPlan, backend: TrueNASBackend, probe: Callable[[], ProbeResult], *,
                       checkin_timeout: int, confirm_session_interface: bool = False,
                       progress: Callable[[float, str], None] | None = None, cancel: CancelToken | None = None,
                       probe_interval: float = 0.5, await_checkin: Callable[[float], bool] | None = None,
                       kernel_reason: Callable[[], str | None] | None = None) -> LaggApplyResult:
    """``kernel_reason``: when TrueNAS could not create the bond, why the NAS's kernel could not (asked only
    where tengig runs on the NAS: bonding_here)."""
    if not plan.platform.startswith("truenas-"):
        raise ValidationError.one("platform", f"a {plan.platform} plan cannot be applied through the TrueNAS API")
    calls = render(plan).api_calls
    try:
        result = apply_staged(backend, calls, probe, checkin_timeout=checkin_timeout,
                              confirm_session_interface=confirm_session_interface, progress=progress, cancel=cancel,
                              probe_interval=probe_interval, await_checkin=await_checkin)
    except NotCreated as exc:
        reason = kernel_reason() if kernel_reason is not None else None
        if reason is None:
            raise
        raise NotCreated(f"{exc.message}. Why: {reason}", exc.missing) from exc
    return LaggApplyResult(name=plan.name, changed=result.changed,
                           api_calls=[c.method for c in calls] if result.changed else [])
