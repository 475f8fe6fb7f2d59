"""tengig.fix: a change of the NAS answering the verdict's advice, its predicted result, applied and proven."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ...checkin import CHECKIN_TIMEOUT_S
from .base import ApiInput, ApiOutput, RowId

Direction = Literal["read", "write"]


class TenGigFixSetting(ApiOutput):
    platform: Literal["truenas", "system"] = Field(description="Where it lives: TrueNAS's API, or the system's own "
                                                   "tools (smb.conf and smbcontrol, zfs, ip).")
    kind: Literal["smb", "dataset", "interface"] = Field(description="The SMB server, a ZFS dataset, an interface.")
    object: str = Field(description="What it is set on: 'smb.conf [global]', 'smb.config', a dataset, an interface.")
    key: str = Field(description="The setting as the platform names it ('server smb encrypt', 'sync', 'mtu').")


class TenGigFixPrediction(ApiOutput):
    direction: Direction = Field(description="read or write.")
    measured_bytes_per_s: float = Field(description="SMB's figure in the run, bytes/s.")
    predicted_bytes_per_s: float = Field(description="What the other ceilings allow once the fix's bound is gone, "
                                         "bytes/s.")
    bound: Literal["pool", "link", "network", "smb"] = Field(description="The component whose ceiling that is.")
    bound_label: str = Field(description="That ceiling as the verdict labels it.")
    bound_bytes_per_s: float | None = Field(None, description="That ceiling, bytes/s, before SMB's share of it on "
                                            "this NAS; null: the same as predicted.")
    smb_share: float | None = Field(None, description="SMB's share of that ceiling that this NAS's earlier kept "
                                    "fixes measured (median), applied; null: no record yet.")
    why: str = Field(description="The prediction in words, with its numbers.")


class TenGigFixEntry(ApiOutput):
    name: str = Field(description="The fix's name (what tengig.fix.apply's request.fix picks).")
    rule: str = Field(description="The advice rule it answers.")
    client: str = Field(description="The desktop whose verdict gave that advice.")
    setting: TenGigFixSetting = Field(description="The setting it changes.")
    run_read: str = Field(description="What the run read of it (the value, or what it saw of its effect).")
    from_value: str | None = Field(description="Its value on the NAS now; null: not read.")
    to_value: str = Field(description="The value the fix sets.")
    call: str = Field(description="The change as a person would make it there.")
    undo_call: str = Field(description="How it is put back.")
    phases: list[Literal["smb"]] = Field(description="What is measured again to judge it.")
    directions: list[Direction] = Field(description="The directions it should speed up.")
    predictions: list[TenGigFixPrediction] = Field(description="Per direction: what SMB should reach.")
    gain_unknown: str | None = Field(None, description="Set when this fix's predictions missed too often on this "
                                     "NAS (more than 1 of its last 10 outside 15%): why no gain is promised.")
    text: str = Field(description="The fix in one paragraph.")


class TenGigFixWords(ApiOutput):
    rule: str = Field(description="The advice rule.")
    client: str | None = Field(description="The desktop whose verdict gave it.")
    why: str = Field(description="Why no change of the NAS's own answers it.")


class TenGigFixPlanEntry(ApiOutput):
    run_id: int = Field(description="The run whose verdict it answers.")
    fixes: list[TenGigFixEntry] = Field(description="The changes that answer its advice.")
    words: list[TenGigFixWords] = Field(description="Its advice that stays words, each with why.")


class TenGigFixGain(ApiOutput):
    direction: Direction = Field(description="read or write.")
    before: list[float] = Field(description="The run's SMB copies, bytes/s each.")
    after: list[float] = Field(description="The copies after the change, bytes/s each.")
    before_median: float = Field(description="Their median before, bytes/s.")
    after_median: float = Field(description="Their median after, bytes/s.")
    gain_percent: float = Field(description="(after - before) / before x 100, of the medians.")
    verdict: Literal["gain", "loss", "within-spread"] = Field(description="Judged against the copies' own spread.")
    chance_percent: float = Field(description="The chance of so clean a separation by luck alone, %.")
    text: str = Field(description="The judgement in words.")


class TenGigFixCheck(ApiOutput):
    direction: Direction = Field(description="read or write.")
    measured_bytes_per_s: float = Field(description="SMB before the fix, bytes/s.")
    predicted_bytes_per_s: float = Field(description="The prediction, bytes/s.")
    bound_bytes_per_s: float = Field(description="The lowest ceiling left, before SMB's share of it, bytes/s.")
    measured_after_bytes_per_s: float = Field(description="SMB after the fix (the re-measure's median), bytes/s.")
    bound: Literal["pool", "link", "network", "smb"] = Field(description="The component the prediction came from.")
    off_percent: float = Field(description="(measured after - predicted) / predicted x 100.")
    within: bool = Field(description="Within 15% of the prediction.")


class TenGigFixOutcome(ApiOutput):
    fix_id: int = Field(description="The fix's id in the results database.")
    run_id: int = Field(description="The run it was made from.")
    after_run_id: int | None = Field(description="The run that measured SMB again (tengig.results.get).")
    fix: TenGigFixEntry = Field(description="The change.")
    previous: str = Field(description="The value before it (what undo puts back).")
    state: Literal["kept", "rolled-back", "undone", "failed"] = Field(description="Kept, or put back.")
    gains: list[TenGigFixGain] = Field(description="Each direction before and after.")
    predictions: list[TenGigFixCheck] = Field(description="Each direction's prediction against the re-measure.")
    why: str = Field(description="Why it was kept or put back.")


class TenGigFixRecord(ApiOutput):
    id: int = Field(description="The fix's id in the results database.")
    run_id: int = Field(description="The run it was made from.")
    after_run_id: int | None = Field(description="The run that measured SMB again; null: none stored (yet).")
    name: str = Field(description="The fix's name.")
    state: Literal["applying", "kept", "rolled-back", "undone", "failed"] = Field(
        description="applying (or stopped mid-way: undo puts it back), kept, rolled-back, undone, failed.")
    applied: float = Field(description="Epoch seconds it started.")
    finished: float | None = Field(description="Epoch seconds it ended (or was undone); null while applying.")
    fix: TenGigFixEntry = Field(description="The change.")
    previous: str = Field(description="The value before it (what undo puts back).")
    gains: list[TenGigFixGain] = Field(description="Each direction before and after ([] when not measured).")
    why: str | None = Field(description="Why it was kept, put back or failed; null while applying.")
    undone: str | None = Field(description="What its undo did; null when not undone.")


class TenGigFixQueryArgs(ApiInput):
    run_id: RowId | None = Field(None, description="Only the fixes made from this run or measured by it; null: all.")


class TenGigFixQueryResult(ApiOutput):
    result: list[TenGigFixRecord] = Field(description="The fixes, newest first.")


class TenGigFixPlanArgs(ApiInput):
    run_id: RowId = Field(description="The run whose verdict to answer.")


class TenGigFixPlanResult(ApiOutput):
    result: TenGigFixPlanEntry = Field(description="Its fixes (with each setting's value now) and its words.")


class TenGigFixApplyRequest(ApiInput):
    run_id: RowId = Field(description="The run whose verdict the fix answers: the newest on this NAS.")
    fix: str | None = Field(None, max_length=64, description="The fix's name or its advice rule (null: the run's "
                            "only fix).")
    confirm: bool = Field(False, description="true to change the NAS; without it nothing changes and the error "
                          "shows the change and its prediction.")
    join_timeout: int | None = Field(None, ge=10, le=3600, description="Seconds to wait for the desktops to join "
                                     "the re-measure (default: the run's).")
    force_busy: bool = Field(False, description="true to apply it while the NAS is busy with something else (an "
                             "SMB session that is not the run's, a scrub or resilver on the pool); without it the "
                             "fix is refused, naming what.")
    checkin_timeout: int = Field(CHECKIN_TIMEOUT_S, ge=5, le=600, description="A network fix on a TrueNAS: seconds "
                                 "of its rollback timer; the desktops must answer the don't-fragment probe within "
                                 "it or TrueNAS puts the previous value back.")


class TenGigFixApplyArgs(ApiInput):
    request: TenGigFixApplyRequest = Field(description="Which fix of which run, confirmed.")


class TenGigFixApplyResult(ApiOutput):
    result: TenGigFixOutcome = Field(description="Before and after, kept or put back, and why.")


class TenGigFixUndoArgs(ApiInput):
    run_id: RowId = Field(description="The run a kept fix was made from (or that measured it).")


class TenGigFixUndoResult(ApiOutput):
    result: list[str] = Field(description="What was put back, one line per fix.")
