"""Apply and verify a mesh on a MeshSystem: the steps the API jobs and the CLI share.

Applying to several hosts is all or nothing too: when one host fails, the hosts already changed are
taken back (newest first) before the error is raised. With ``await_checkin`` the whole change also
waits, once applied, for a person to confirm it (checkin.CheckinGate); unconfirmed, it is taken back.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..bench.context import BenchContext
from ..bench.join.join_wait import joined_session
from ..checkin import NotConfirmed
from ..errors import Aborted, ValidationError
from .apply_linux import MeshApplyResult, apply_linux
from .models import MeshPlan
from .planner import plan_mesh
from .request import MeshRequest
from .joined import joined_peers, verify_mesh_joined
from .systems import MeshSystem
from .verify import MeshVerifyResult, verify_mesh

Progress = Callable[[float, str], None]


def _silent(percent: float, description: str) -> None:
    pass


def hosts_to_act_on(system: MeshSystem, plan: MeshPlan, asked: Sequence[str], field: str) -> list[str]:
    """The hosts asked for (default: every plan host the system reaches), checked against both."""
    in_plan = [h.name for h in plan.hosts]
    reachable = system.hosts()
    if not asked:
        chosen = [h for h in in_plan if h in reachable]
        if not chosen:
            raise ValidationError.one(field, f"{system.name} is none of the plan's hosts ({', '.join(in_plan)})")
        return chosen
    errors = []
    for i, h in enumerate(asked):
        if h not in in_plan:
            errors.append((f"{field}.{i}", f"{h!r} is not a host of the plan ({', '.join(in_plan)})"))
        elif h not in reachable:
            errors.append((f"{field}.{i}", f"{system.name} cannot act on {h!r} (it reaches: {', '.join(reachable)})"))
    if errors:
        raise ValidationError(errors)
    return list(dict.fromkeys(asked))


def apply_mesh(system: MeshSystem, request: MeshRequest, hosts: Sequence[str] = (), *,
               progress: Progress = _silent, cancel: threading.Event | None = None,
               await_checkin: Callable[[float], bool] | None = None,
               checkin_timeout: int | None = None) -> list[MeshApplyResult]:
    """Apply on every chosen host, or on none. With await_checkin, the change stays only if it returns True
    within checkin_timeout seconds (the caller's option: no default of its own here)."""
    if await_checkin is not None and checkin_timeout is None:
        raise TypeError("apply_mesh: await_checkin needs the checkin_timeout it waits for")
    plan = plan_mesh(request)
    chosen = hosts_to_act_on(system, plan, hosts, "hosts")
    done: list[MeshApplyResult] = []
    top = 90 if await_checkin else 100
    try:
        for i, host in enumerate(chosen):
            if cancel is not None and cancel.is_set():
                raise Aborted("the mesh apply was aborted; hosts already changed were taken back")
            span = (top * i / len(chosen), top * (i + 1) / len(chosen))
            step = (lambda lo, hi: lambda p, d: progress(lo + (hi - lo) * p / 100, d))(*span)
            done.append(apply_linux(request, plan, host, system.network(host), system.hosts_file(host), progress=step))
        if await_checkin is not None and any(r.changed for r in done):
            progress(top, f"Applied on {', '.join(chosen)}: confirm within {checkin_timeout} s, or it is taken back")
            if not await_checkin(checkin_timeout):
                if cancel is not None and cancel.is_set():
                    raise Aborted("the mesh apply was aborted while waiting for the confirmation; every host was "
                                  "taken back")
                raise NotConfirmed(f"nobody confirmed the mesh within {checkin_timeout} s (the panel's Confirm, or "
                                   "tengig.mesh.checkin): every host was taken back as it was")
            progress(100, "Confirmed: the mesh stays")
    except BaseException:
        for result in reversed(done):
            result.undo()
        raise
    return done


def verify_on(system: MeshSystem, request: MeshRequest, hosts: Sequence[str] = (), *, measure_throughput: bool,
              seconds: int, min_percent: float, progress: Progress = _silent,
              cancel: threading.Event | None = None, omit: int = 2) -> MeshVerifyResult:
    plan = plan_mesh(request)
    chosen = hosts_to_act_on(system, plan, hosts, "hosts")
    ctx = BenchContext(system.runner_hosts(), progress=progress, cancel=cancel or threading.Event())
    return verify_mesh(ctx, plan, chosen, measure_throughput=measure_throughput, seconds=seconds,
                       min_percent=min_percent, omit=omit)


def verify_joined_on(system: MeshSystem, request: MeshRequest, hosts: Sequence[str], *, join: int,
                     join_timeout: float, seconds: int, omit: int, min_percent: float, progress: Progress = _silent,
                     cancel: threading.Event | None = None,
                     live: Callable[[dict[str, Any]], None] | None = None) -> MeshVerifyResult:
    """From this machine, the one plan host ``hosts`` names, with ``join`` of its peers joining
    (mesh/joined.py). Errors name ``hosts`` and ``join``."""
    plan = plan_mesh(request)
    chosen = hosts_to_act_on(system, plan, hosts, "hosts")
    if len(chosen) != 1:
        raise ValidationError.one("hosts", "with join, name the one plan host this machine is; its peers join")
    ctx = BenchContext(system.runner_hosts(), progress=progress, cancel=cancel or threading.Event(), live=live)
    with joined_session(ctx, join, join_timeout=join_timeout) as (session, clients):
        peers = joined_peers(plan, chosen[0], clients)
        return verify_mesh_joined(ctx, plan, chosen[0], session, peers, seconds=seconds, omit=omit,
                                  min_percent=min_percent)
