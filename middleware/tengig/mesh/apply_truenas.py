"""Apply one host's part of a mesh plan on a TrueNAS, through its API: `interface.update` per mesh
port (staged), `interface.commit` with rollback and a checkin timeout, the new links probed from the
NAS (a ping to the far end of each cable), `interface.checkin` only when every link answers, then our
hosts entries merged into network.configuration (backends/truenas/staged_change.py does the steps).

If a link stays silent, the change is rolled back at once and the error names the cable; if tengig
dies in between, TrueNAS rolls back by itself when the checkin timeout ends. The interface carrying
the caller's session is refused unless confirmed (docs/truenas-api.md §3).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..backends.truenas import ProbeResult, ProbeTarget, TrueNASBackend, apply_staged
from ..runner import CancelToken, Completed
from .apply_linux import MeshApplyResult
from .models import MeshPlan
from .truenas_api import truenas_calls
from ..ping import ping_once

RunOnNas = Callable[[Sequence[str]], Completed]  # run argv on the NAS (where the probe must start)


def link_probe(plan: MeshPlan, host: str, run_on_nas: RunOnNas) -> Callable[[], ProbeResult]:
    """One ping (1 s) per cable from the NAS's mesh port to the far end."""
    def probe() -> ProbeResult:
        targets = []
        for cable in plan.cables_of(host):
            near, far = cable.end_of(host), cable.far_end_of(host)
            ok, detail = ping_once(run_on_nas, near.port, far.address)
            targets.append(ProbeTarget(name=f"{cable.id} {near.port} -> {far.host} {far.address}", ok=ok, detail=detail))
        return ProbeResult(ok=all(t.ok for t in targets), targets=targets)
    return probe


def apply_truenas(plan: MeshPlan, host: str, backend: TrueNASBackend, run_on_nas: RunOnNas, *,
                  checkin_timeout: int, confirm_session_interface: bool = False,
                  progress: Callable[[float, str], None] | None = None, cancel: CancelToken | None = None,
                  probe_interval: float = 0.5, await_checkin: Callable[[float], bool] | None = None
                  ) -> MeshApplyResult:
    calls = truenas_calls(plan, plan.host(host), existing_hosts=backend.hosts())
    result = apply_staged(backend, calls, link_probe(plan, host, run_on_nas), checkin_timeout=checkin_timeout,
                          confirm_session_interface=confirm_session_interface, progress=progress, cancel=cancel,
                          probe_interval=probe_interval, await_checkin=await_checkin)
    changes = [f"{c.params[0]}: aliases/MTU staged, committed, checked in" for c in calls
               if c.method == "interface.update"] if result.staged_calls else []
    if result.hosts_updated:
        changes.append("network.configuration hosts: tengig's entries merged")
    return MeshApplyResult(host=host, changed=result.changed, changes=changes, persistent=True, hosts_file=None)
