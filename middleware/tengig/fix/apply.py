"""A fix applied and proven: refused (nothing changed) when the run is not the newest on its NAS, when the
setting is not what the run read, or without confirmation; else the previous value recorded first, the change
made, the SMB copies measured again with the same desktops and file size (a run of its own, stored), each
direction judged against the run's own spread (gain.py), and the change kept only for a real gain, else put
back. ``undo_fixes`` puts back the value before every fix a run kept.

The NAS is changed only through ``Settings`` (settings.py) and measured only through ``remeasure`` (the bench
suite, recorded: bench/run/record.run_and_record), both handed in."""
from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..bench.run.suite import BenchReport, BenchRunRequest
from ..errors import TengigError, ValidationError
from ..results.models import RunRecord
from .busy import busy_text
from .catalog import normal
from .gain import judge_gain, keep
from .models import DirectionGain, Fix, FixOutcome, FixPlan, Platform, Setting
from .plan import plan_fixes, predicted_text
from .pool_history import with_pool_history
from .record import check_text, checks, with_record
from .run_view import RunView, host_of, view_of
from .settings import Settings

# remeasure(request, on_joined): the run of kind smb, stored; on_joined is called once its desktops joined,
# before anything is measured (run_and_record's hook), and changes the setting there
Remeasure = Callable[..., tuple[int, BenchReport]]
Progress = Callable[[float, str], None]
MIN_COPIES = 2  # a gain needs a spread to be judged against: at least two copies each way


def _silent(percent: float, description: str) -> None:
    pass


def succeeded_runs(store: Any) -> list[RunRecord]:
    """The store's successful runs, newest first (the last 1000): what newer_runs and the pool's history read."""
    return store.query(status="success", limit=1000)


def newer_runs(runs: Sequence[RunRecord], run: RunRecord) -> list[int]:
    """Of ``runs`` (succeeded_runs), those that measured the same NAS (run_view.host_of) after ``run``, newest
    first."""
    return [r.id for r in runs if r.started > run.started and r.id != run.id and host_of(r) == host_of(run)]


def fix_view(run: RunRecord, runs: Sequence[RunRecord], network_owner: Platform | None = None) -> RunView:
    """The run's view to fix from (run_view.view_of), its pool ceiling steadied by the same pool's earlier runs on
    this NAS among ``runs`` (succeeded_runs; pool_history)."""
    return with_pool_history(view_of(run, network_owner), runs)


def plan_now(view: RunView, settings: Settings, history: Sequence[dict[str, Any]] = ()) -> FixPlan:
    """The run's fixes with each setting's value as the NAS holds it now (one that cannot be read: unknown);
    ``history``: the fixes table's rows, whose record may take a fix's number away (record.with_record)."""
    current: dict[Setting, str | None] = {}
    for fix in plan_fixes(view).fixes:
        try:
            current[fix.setting] = settings.read(fix.setting)
        except TengigError:
            current[fix.setting] = None
    return with_record(plan_fixes(view, current), history)


def choose(plan: FixPlan, name: str | None) -> Fix:
    """The fix ``name`` names (its name or its advice rule); without a name, the run's only fix."""
    if name is None:
        if len(plan.fixes) == 1:
            return plan.fixes[0]
        if not plan.fixes:
            raise ValidationError.one("run_id", f"run {plan.run_id} has no fix: {_words(plan)}")
        names = ", ".join(f.name for f in plan.fixes)
        raise ValidationError.one("fix", f"run {plan.run_id} has {len(plan.fixes)} fixes ({names}): name one")
    found = [f for f in plan.fixes if name in (f.name, f.rule)]
    if len(found) == 1:
        return found[0]
    words = [w for w in plan.words if w.rule == name]
    if words:
        raise ValidationError.one("fix", f"run {plan.run_id}'s {name} stays advice: {words[0].why}")
    names = ", ".join(f.name for f in plan.fixes) or "none"
    raise ValidationError.one("fix", f"run {plan.run_id} has no fix named {name!r} (its fixes: {names})")


def _words(plan: FixPlan) -> str:
    if not plan.words:
        return "its verdict gave no advice"
    return "; ".join(f"{w.rule}: {w.why}" for w in plan.words)


def remeasure_request(view: RunView, fix: Fix, join_timeout: int | None) -> BenchRunRequest:
    """The SMB copies again, as the run made them: the same desktops, share, target, preset and file size, and
    at least as many copies as it made (MIN_COPIES or more)."""
    inputs, client = view.run.inputs, next(c for c in view.clients if c.name == fix.client)
    smb = client.report.smb
    copies = max(len(smb.read.bytes_per_s.values), len(smb.write.bytes_per_s.values), MIN_COPIES)
    return BenchRunRequest(kind="smb", target=view.report.target, preset=view.report.preset, repeats=copies,
                           join=len(view.report.clients), share=inputs.get("share"),
                           join_timeout=join_timeout or inputs.get("join_timeout") or 300, smb_file=smb.file_size)


def rejoin_text(view: RunView, request: BenchRunRequest) -> str:
    """What the re-measure needs, said before anything changes: the run's desktops joining again in time."""
    names = [c.client for c in view.report.clients]
    said = ", ".join(names) if names else "the run's desktops"
    return (f"The re-measure needs {said} to join again within {request.join_timeout} s (the job shows the join "
            "command with its token, as a run does: on each desktop, `tengig client join ws://NAS:PORT --token "
            "TOKEN`); nothing changes before they have joined, so a desktop that is gone leaves the NAS as it was")


def gains(before: BenchReport, after: BenchReport, client: str) -> list[DirectionGain]:
    """Each direction ``client`` copied both times, judged."""
    b = next((c.smb for c in before.clients if c.client == client), None)
    a = next((c.smb for c in after.clients if c.client == client and c.lost is None), None)
    if b is None or a is None:
        return []
    return [judge_gain(d, getattr(b, d).bytes_per_s.values, getattr(a, d).bytes_per_s.values)
            for d in ("read", "write")]


ONE_CHANNEL_CLIENTS = {"linux": "smbclient", "freebsd": "smbclient"}  # how a desktop of that OS joins a copy


def one_channel(fix: Fix, after: BenchReport) -> str | None:
    """Why multichannel gave the desktop nothing, when its client used one channel after the change too: the
    channels its session held (Samba 4.18 on lists them), else the client its OS copies with."""
    if fix.name != "smb-multichannel":
        return None
    report = next((c for c in after.clients if c.client == fix.client), None)
    if report is None or report.smb is None:
        return None
    mc, os_name = report.smb.multichannel, (report.joined or {}).get("os")
    channels = mc.session_channels if mc is not None else None
    if channels == 1:
        return (f"{fix.client}'s session still held 1 channel after the change: its client uses one channel, so "
                "multichannel gives it nothing")
    if channels is None and os_name in ONE_CHANNEL_CLIENTS:
        return (f"{fix.client} copies with {ONE_CHANNEL_CLIENTS[os_name]} ({os_name}), which uses one channel "
                "whatever the NAS offers: multichannel gives it nothing (a Windows desktop with several NICs, or "
                "one RSS-capable NIC, opens several)")
    return None


def precheck(store: Any, run_id: int, name: str | None, network_owner: Platform | None = None) -> RunView:
    """The refusals that need nothing of the NAS, before anything reads it: a run that is not the newest on its
    NAS, one with no verdict, a fix it does not have. The run's view (``network_owner``: run_view.view_of)."""
    run = store.get(run_id)
    runs = succeeded_runs(store)
    newer = newer_runs(runs, run)
    if newer:
        raise ValidationError.one("run_id", f"run {run_id} is not the newest on this NAS: run {newer[0]} measured it "
                                  f"since; fix from that run's verdict (`tengig fix {newer[0]}`)")
    view = fix_view(run, runs, network_owner)
    plan = plan_fixes(view)
    if name is not None or not plan.fixes:  # the values read now can only turn fixes into words
        choose(plan, name)
    return view


def apply_fix(store: Any, settings: Settings, remeasure: Remeasure, run_id: int, name: str | None, *,
              confirm: bool, join_timeout: int | None = None, force_busy: bool = False,
              progress: Progress = _silent, network_owner: Platform | None = None) -> FixOutcome:
    view = precheck(store, run_id, name, network_owner)
    fix = choose(plan_now(view, settings, store.fixes()), name)
    request = remeasure_request(view, fix, join_timeout)
    needs = rejoin_text(view, request)
    if not confirm:
        raise ValidationError.one("confirm", f"{fix.text}. Nothing changed: confirm it (confirm: true) to apply it, "
                                  f"measure SMB again and keep it only for a real gain. {needs}")
    busy = settings.busy(view.report.pool.pool if view.report.pool else None)
    if busy and not force_busy:
        raise ValidationError.one("force_busy", busy_text(busy))
    previous = settings.previous(fix.setting)
    fix_id = store.start_fix(run_id, fix.name, {"fix": fix.model_dump(mode="json"), "previous": previous})
    progress(1, needs)
    changed = threading.Event()

    def change(_joined: Any = None) -> None:
        """The setting changed and read back: once the re-measure's desktops joined, or at once without any."""
        if changed.is_set():
            return
        progress(2, f"{fix.setting.text()}: {fix.from_value} -> {fix.to_value} ({fix.call})")
        changed.set()
        settings.write(fix.setting, fix.to_value)
        now = settings.read(fix.setting)
        if normal(fix.setting, now) != normal(fix.setting, fix.to_value):
            raise TengigError(f"{fix.setting.text()} reads {now} after it was set to {fix.to_value}")
        progress(5, f"measuring SMB again (predicted: {predicted_text(fix)})")

    try:
        if not request.join:
            change()
        after_id, after = remeasure(request, on_joined=change)
        if not changed.is_set():
            raise TengigError(f"the re-measure (run {after_id}) ended before its desktops joined")
    except BaseException as exc:
        why = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        if not changed.is_set():  # the desktops never joined (gone, late, stopped): the NAS is as it was
            store.finish_fix(fix_id, "failed", {"fix": fix.model_dump(mode="json"), "previous": previous,
                                                "why": f"{why}; nothing was changed"})
            if isinstance(exc, TengigError):
                raise TengigError(f"{fix.name} not applied, nothing changed: {why}",
                                  errno=getattr(exc, "errno", None)) from exc
            raise
        back = _put_back(settings, fix.setting, previous)
        store.finish_fix(fix_id, "failed" if back.startswith("put back") else "applying",
                         {"fix": fix.model_dump(mode="json"), "previous": previous, "why": f"{why}; {back}"})
        raise
    judged = gains(view.report, after, fix.client)
    kept, why = keep(judged, fix.name) if judged else (False, f"{fix.client} did not copy again in run {after_id}: "
                                             "nothing to judge the change by")
    if (one := one_channel(fix, after)) is not None:
        # One channel after the change: whatever the copies gained or lost, the change did not do it (the machine's
        # load moved them), so it is put back.
        why = f"{one}; {why}" if not kept else f"{one}: what the copies gained is not the change's ({why})"
        kept = False
    found = checks(fix, judged)
    if found:
        why += f". Predicted against measured: {check_text(found)}"
    if not kept:
        back = _put_back(settings, fix.setting, previous)
        why += f"; {back}"
    outcome = FixOutcome(fix_id=fix_id, run_id=run_id, after_run_id=after_id, fix=fix, previous=previous,
                         state="kept" if kept else "rolled-back", gains=judged, predictions=found, why=why)
    store.finish_fix(fix_id, outcome.state, outcome.model_dump(mode="json"), after_run_id=after_id)
    progress(100, f"{'kept' if kept else 'put back'}: {why}")
    return outcome


def _put_back(settings: Settings, setting: Setting, previous: str) -> str:
    """The previous value written again; what happened, in words (a failure too: `tengig fix undo` tries again)."""
    try:
        settings.write(setting, previous)
    except TengigError as exc:
        return f"{setting.text()} could NOT be put back to {previous} ({exc.message}): `tengig fix undo` tries again"
    return f"put back {setting.text()} to {previous}"


def kept_fixes(store: Any, run_id: int) -> list[dict[str, Any]]:
    """The fixes ``undo_fixes`` would put back, newest first; ENOENT when there is none (nothing read of the NAS)."""
    todo = [f for f in store.fixes(run_id) if f["state"] in ("kept", "applying")]
    if not todo:
        store.get(run_id)  # a run that is not there says so
        raise TengigError(f"run {run_id} has no kept fix to undo", errno=errno.ENOENT)
    return todo


def undo_fixes(store: Any, settings: Settings, run_id: int) -> list[str]:
    """Put back the value before every fix made from run ``run_id`` (or measured by it) that was kept, or left
    mid-way by a process that died, newest first; what was put back, in words. A setting someone changed since
    the fix is refused (naming its value now) before anything is put back."""
    todo = kept_fixes(store, run_id)
    checked = []
    for row in todo:
        fix = Fix.model_validate(row["data"]["fix"])
        now = normal(fix.setting, settings.read(fix.setting))
        if row["state"] == "applying" and now == normal(fix.setting, row["data"]["previous"]):
            checked.append((row, None))  # it stopped before the change: nothing to put back
            continue
        if now != normal(fix.setting, fix.to_value):
            raise TengigError(f"{fix.setting.text()} is {now} now, not the {fix.to_value} fix {row['id']} set: it "
                              "changed since; nothing was put back", errno=errno.EBUSY)
        checked.append((row, fix))
    said = []
    for row, fix in checked:
        previous = row["data"]["previous"]
        if fix is None:
            store.finish_fix(row["id"], "undone", {**row["data"], "undone": "it had not changed anything"})
            continue
        settings.write(fix.setting, previous)
        store.finish_fix(row["id"], "undone", {**row["data"], "undone": f"put back to {previous}"})
        said.append(f"fix {row['id']} ({fix.name}): {fix.setting.text()} {fix.to_value} -> {previous}")
    return said
