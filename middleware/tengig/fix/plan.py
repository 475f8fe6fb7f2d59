"""Which advice of a run a change of the NAS answers, and the change (pure). Each rule reads one desktop's
verdict, the facts it was judged on and, when given, each setting's value as the NAS holds it now; it returns a
Fix, or Words when no safe change of the NAS's own answers the advice (a cable, a disk, the desktop's setting)
or the NAS does not hold the costly value now (the desktop asked for it, or someone changed it since the run).

``current``: setting -> its value now (None: unread). Without it the fixes carry no ``from_value``: the
service reads them through the settings seam and plans again (plan_with_current)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import PurePosixPath

from ..backends.scratch import SCRATCH_PREFIX
from ..verdict.advice import mb_s, smb_far_below
from ..verdict.dataset_costs import dataset_costs
from ..verdict.models import Advice, Direction
from . import catalog
from .catalog import Knob, normal
from .models import Fix, FixPlan, Prediction, Setting, Words
from .predict import chain_predictions, mtu_predictions, smb_own_ceilings
from .run_view import ClientView, RunView

Current = Mapping[Setting, str | None]
Rule = Callable[[RunView, ClientView, Advice, Current], "Fix | Words | None"]

# Advice no change of the NAS's own settings answers, and why it stays words.
STAYS_WORDS = {
    "link-down-during-run": "a cable, a transceiver or a switch port: hardware, not a setting",
    "half-duplex": "both ends must negotiate alike: the switch port is no setting of the NAS's",
    "link-negotiated-low": "a cable, a switch port or a forced speed at either end",
    "link-below-target": "a faster link or more ports: hardware",
    "loses-at-its-bound": "the bottleneck itself must rise: hardware, or the advice that names its cause",
    "single-stream-low": "interrupts, offloads and TCP windows at both ends: tuned by hand, not by one setting",
    "path-loses-packets": "the path drops packets: a cable, a switch or a NIC",
    "ceiling-below-smb": "a figure to measure again as SMB uses it, not a setting",
    "pool-below-network": "the pool's disks and vdevs",
    "client-cpu": "the desktop's CPU: the desktop's, not the NAS's",
    "lagg-single-flow": "the network's layout (separate NICs instead of a LAGG)",
    "smb-multichannel-lagg": "the network's layout (separate NICs instead of a LAGG)",
    "pool-member-dragging": "a disk",
    "pool-needs-threads": "how the desktop copies (several files at once)",
    "small-files-round-trips": "the path's latency and how the files are copied",
    "small-files-smbd-cpu": "smbd's per-file work: a faster core, or fewer VFS modules on the share",
    "small-files-signing": "signing's share of small files: the large-file verdict's signing fix answers it",
}


def far_directions(client: ClientView) -> list[Direction]:
    """The directions where SMB sat far below what pool, link and network allow (the verdict's smb-far-below)."""
    return [dv.direction for dv in client.verdict.directions if smb_far_below(dv.ceilings) is not None]


def _measured(client: ClientView) -> list[Direction]:
    return [dv.direction for dv in client.verdict.directions if dv.smb_bytes_per_s is not None]


def _fix(name: str, advice: Advice, client: ClientView, knob: Knob, run_read: str, current: Current,
         predictions: list[Prediction], *, changed: str) -> Fix | Words:
    """The fix setting ``knob`` to its better value, or Words: the NAS does not hold a costly value now
    (``changed`` says what that means for this setting), or nothing predicts a gain."""
    setting = knob.setting
    now = current.get(setting)
    if now is not None and normal(setting, now) not in knob.costly:
        return Words(rule=advice.rule, client=client.name, why=f"the NAS holds {setting.key} = {now} now, which "
                     f"costs nothing here: {changed}")
    if not predictions:
        return Words(rule=advice.rule, client=client.name, why=f"{knob.what} is on, but the ceilings the run "
                     "measured allow SMB no more than it reached: no gain to predict")
    shown = f"from {now}" if now is not None else f"(the run saw: {run_read})"
    return Fix(
        name=name, rule=advice.rule, client=client.name, setting=setting, run_read=run_read, from_value=now,
        to_value=knob.better, call=knob.call(knob.better), undo_call=knob.call(now) if now is not None else
        "the same call with the value it holds before (read when the fix is applied)", phases=["smb"],
        directions=[p.direction for p in predictions], predictions=predictions,
        text=(f"{knob.what} holds SMB back ({advice.rule}): set {setting.text()} {shown} to {knob.better} "
              f"({knob.call(knob.better)}). Predicted: {'; '.join(p.why for p in predictions)}"))


def _encryption(view: RunView, client: ClientView, advice: Advice, current: Current) -> Fix | Words:
    knob = catalog.encryption(view.platform)
    gone = "encryption's per-byte cost in smbd and in the desktop's client"
    return _fix("smb-encryption", advice, client, knob, "sessions encrypted (smbstatus)", current,
                chain_predictions(client.verdict.directions, far_directions(client), gone),
                changed=f"the desktop's client asked for encryption, or the setting changed since run {view.run.id}")


def _signing(view: RunView, client: ClientView, advice: Advice, current: Current) -> Fix | Words:
    knob = catalog.signing(view.platform)
    if knob is None:
        return Words(rule=advice.rule, client=client.name, why="TrueNAS has no signing setting of its own: the "
                     "desktop's client asked for signing (Windows: RequireSecuritySignature)")
    gone = "signing's per-message cost in smbd and in the desktop's client"
    return _fix("smb-signing", advice, client, knob, "sessions signed (smbstatus)", current,
                chain_predictions(client.verdict.directions, far_directions(client), gone),
                changed=f"the desktop's client asked for signing, or the setting changed since run {view.run.id}")


def _multichannel(view: RunView, client: ClientView, advice: Advice, current: Current) -> Fix | Words:
    if client.facts.smb_multichannel is not False:
        return Words(rule=advice.rule, client=client.name, why="multichannel is on at the NAS: the desktop's client "
                     "must open more channels (smbclient always uses one)")
    knob = catalog.multichannel(view.platform)
    which = far_directions(client) if advice.rule == "smb-multichannel-off" else _measured(client)
    read = "false" if view.platform == "truenas" else "no"
    return _fix("smb-multichannel", advice, client, knob, read, current,
                chain_predictions(client.verdict.directions, which, "one channel's single smbd connection"),
                changed=f"someone turned it on since run {view.run.id}")


def _mtu(view: RunView, client: ClientView, advice: Advice, current: Current) -> Fix | Words:
    port, joined = client.report.nas_port, client.report.joined or {}
    desk = joined.get("mtu")
    if port is None or not isinstance(desk, int) or not desk:
        return Words(rule=advice.rule, client=client.name, why="the run does not know both ends' MTUs")
    # every desktop that reached this port: the port must carry what the smallest of them takes
    ends = [c.report.joined.get("mtu") for c in view.clients if c.report.nas_port is not None
            and c.report.nas_port.ifname == port.ifname and isinstance((c.report.joined or {}).get("mtu"), int)]
    path = min(m for m in ends if m)
    if port.mtu <= path:
        return Words(rule=advice.rule, client=client.name, why=f"the desktop's end is the odd one ({client.name} "
                     f"{desk} bytes, the NAS's {port.ifname} {port.mtu} bytes): its MTU is the desktop's setting")
    setting = catalog.mtu(view.network_platform, port.ifname)
    now = current.get(setting)
    if now is not None and now != str(port.mtu):
        return Words(rule=advice.rule, client=client.name, why=f"{port.ifname}'s MTU is {now} bytes now, not the "
                     f"{port.mtu} run {view.run.id} read: it changed since the run; measure again")
    knob = Knob(setting, frozenset({str(port.mtu)}), str(path), "the MTU mismatch")
    line = client.report.link.line_rate_bps if client.report.link else None
    gone = f"the frames of {port.mtu} bytes the desktop's end drops"
    return _fix("mtu", advice, client, knob, str(port.mtu), current,
                mtu_predictions(client.verdict.directions, line, path, gone),
                changed=f"it changed since run {view.run.id}")


def _share_dataset(smb_dataset: str | None) -> str | None:
    """The share's own dataset: the parent of the run's scratch dataset in it."""
    if not smb_dataset or f"/{SCRATCH_PREFIX}-" not in smb_dataset:
        return None
    return str(PurePosixPath(smb_dataset).parent)


def _dataset(view: RunView, client: ClientView, advice: Advice, current: Current) -> list[Fix | Words]:
    """The share dataset's properties on the copies' path costlier than the pool measurement's
    (verdict/dataset_costs.py), in a direction where SMB sat far below: the pool's figure is then what the share
    gives once they are gone."""
    facts, out = client.facts, []
    share = _share_dataset(facts.smb_dataset)
    far = far_directions(client)
    if share is None:
        return out
    for prop, costly in (("sync", "always"), ("dedup", None)):  # costly on both: no figure without it
        value = facts.smb_dataset_properties.get(prop, "").lower()
        if value and value == facts.pool_dataset_properties.get(prop, "").lower() and value in (costly, value):
            if (costly is None and value != "off") or value == costly:
                out.append(Words(rule=advice.rule, client=client.name, why=f"the share has {prop}={value}, and so "
                                 "did the pool's own measurement: the run has no figure without it to predict from"))
    for cost in dataset_costs(facts):
        which = [d for d in far if d in cost.directions]
        if not which:
            continue
        knob = catalog.dataset(view.platform, share, cost)
        out.append(_fix(f"dataset-{cost.prop}", advice, client, knob, normal(knob.setting, cost.share_value),
                        current, chain_predictions(client.verdict.directions, which, knob.what,
                                                   smb_own_ceilings(client.report, facts.smbd_cpu_limit_cores)),
                        changed=f"it changed since run {view.run.id}"))
    return out


RULES: dict[str, Rule] = {
    "smb-encryption": _encryption,
    "smb-signing": _signing,
    "smb-multichannel-off": _multichannel,
    "smb-one-channel": _multichannel,
    "mtu-mismatch": _mtu,
}


def plan_fixes(view: RunView, current: Current | None = None) -> FixPlan:
    """Every advice of every desktop's verdict: a fix where a setting of the NAS answers it, else words. One fix
    per setting (several desktops' verdicts naming the same one give it once, the first desktop's)."""
    current = current or {}
    fixes: dict[Setting, Fix] = {}
    words: list[Words] = []
    for client in view.clients:
        for advice in client.verdict.advice:
            if advice.rule == "smb-far-below":
                found: list[Fix | Words] = _dataset(view, client, advice, current)
                if not found:
                    words.append(Words(rule=advice.rule, client=client.name, why="SMB's own limit: the advice beside "
                                       "it names its cause, where the run measured one"))
            elif advice.rule in RULES:
                found = [RULES[advice.rule](view, client, advice, current)]
            else:
                found = [Words(rule=advice.rule, client=client.name,
                               why=STAYS_WORDS.get(advice.rule, "no setting of the NAS answers it"))]
            for one in found:
                if isinstance(one, Fix):
                    fixes.setdefault(one.setting, one)
                else:
                    words.append(one)
    return FixPlan(run_id=view.run.id, fixes=list(fixes.values()), words=words)


def predicted_text(fix: Fix) -> str:
    """'read 136.9 -> 300.4 MB/s, write 107.9 -> 390.6 MB/s' (predicted, the lowest ceiling left)."""
    return ", ".join(f"{p.direction} {mb_s(p.measured_bytes_per_s)} -> {mb_s(p.predicted_bytes_per_s)}"
                     for p in fix.predictions)
