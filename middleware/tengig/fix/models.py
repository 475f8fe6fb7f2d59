"""A fix as data (pure models): which setting, on which object, from which value to which, through which
call, and what SMB should reach once the bound it names is gone. Speeds are bytes per second."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..verdict.models import Component, Direction

# Where a setting lives: TrueNAS's own API, or the system's own tool (smb.conf + reload, zfs, ip) elsewhere.
Platform = Literal["truenas", "system"]
# What kind of object it is: the SMB server's configuration, a ZFS dataset, a network interface.
SettingKind = Literal["smb", "dataset", "interface"]
Phase = Literal["smb"]  # what a fix re-measures: every rule today is judged by the SMB copies
FixState = Literal["kept", "rolled-back", "undone", "failed"]


class Setting(BaseModel):
    """One setting of the NAS, as its platform names it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    platform: Platform
    kind: SettingKind
    object: str = Field(description="What it is set on: 'smb.conf [global]' (Samba), 'smb.config' (TrueNAS), a "
                        "dataset's name, an interface's name.")
    key: str = Field(description="The setting as the platform names it: 'server smb encrypt', 'encryption', "
                     "'sync', 'mtu'.")

    def text(self) -> str:
        return f"{self.key} of {self.object}"


class Prediction(BaseModel):
    """What SMB should reach in one direction once the fix's bound is gone: the lowest ceiling left."""

    model_config = ConfigDict(extra="forbid")

    direction: Direction
    measured_bytes_per_s: float = Field(description="SMB's figure in the run, bytes/s (the median of its copies).")
    predicted_bytes_per_s: float = Field(description="The figure the other ceilings allow, bytes/s.")
    bound: Component = Field(description="The component whose ceiling that is.")
    bound_label: str = Field(description="That ceiling as the verdict labels it.")
    bound_bytes_per_s: float | None = Field(None, description="That ceiling, bytes/s: the prediction before SMB's "
                                            "share of it on this NAS (None: the same as predicted).")
    smb_share: float | None = Field(None, description="SMB's share of the lowest ceiling left that this NAS's "
                                    "earlier kept fixes measured (the median), applied to it; None: no record yet.")
    why: str = Field(description="The prediction in words, with its numbers.")


class Fix(BaseModel):
    """One proposed change: it accompanies the advice named ``rule``."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The fix's own name, what `tengig fix RUN NAME` picks: 'smb-encryption', "
                      "'smb-signing', 'smb-multichannel', 'mtu', 'dataset-sync', 'dataset-dedup'.")
    rule: str = Field(description="The advice rule it answers, e.g. 'smb-encryption'.")
    client: str = Field(description="The desktop whose verdict gave that advice.")
    setting: Setting
    run_read: str = Field(description="What the run read of it: the value, or what it saw of its effect "
                          "('sessions encrypted').")
    from_value: str | None = Field(description="Its value as the NAS holds it now (None: not read yet).")
    to_value: str = Field(description="The value the fix sets.")
    call: str = Field(description="The change as a person would make it there (the seam call).")
    undo_call: str = Field(description="How it is put back.")
    phases: list[Phase] = Field(description="What is measured again to judge it.")
    directions: list[Direction] = Field(description="The directions it should speed up.")
    predictions: list[Prediction]
    gain_unknown: str | None = Field(None, description="Set when this rule's predictions missed too often on "
                                     "this NAS: why its number is not given (the predictions stay, for the record).")
    text: str = Field(description="The fix in one paragraph: what, why, and the predicted result.")


class Words(BaseModel):
    """An advice that stays words: no safe change of the NAS's own answers it (a cable, a disk, a desktop)."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    client: str | None
    why: str


class FixPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: int
    fixes: list[Fix]
    words: list[Words]


class DirectionGain(BaseModel):
    """One direction before and after, judged against the runs' own spread."""

    model_config = ConfigDict(extra="forbid")

    direction: Direction
    before: list[float] = Field(description="The run's SMB copies, bytes/s each.")
    after: list[float] = Field(description="The copies after the fix, bytes/s each.")
    before_median: float
    after_median: float
    gain_percent: float = Field(description="(after - before) / before x 100, of the medians.")
    verdict: Literal["gain", "loss", "within-spread"]
    chance_percent: float = Field(description="The chance that copies of one unchanged NAS separate this cleanly "
                                  "by luck alone (every after-copy above, or below, every before-copy), %.")
    text: str


class PredictionCheck(BaseModel):
    """One direction's prediction against what the re-measure gave (issue: every applied fix records both)."""

    model_config = ConfigDict(extra="forbid")

    direction: Direction
    measured_bytes_per_s: float = Field(description="SMB before the fix (the run's median), bytes/s.")
    predicted_bytes_per_s: float = Field(description="What the fix predicted, bytes/s.")
    bound_bytes_per_s: float = Field(description="The lowest ceiling left, before SMB's share of it, bytes/s.")
    measured_after_bytes_per_s: float = Field(description="SMB after the fix (the re-measure's median), bytes/s.")
    bound: Component
    off_percent: float = Field(description="(measured after - predicted) / predicted x 100.")
    within: bool = Field(description="Within PREDICTION_TOLERANCE_PERCENT of the prediction.")


class FixOutcome(BaseModel):
    """What an applied fix did: the runs before and after, each direction's gain, kept or put back, and why."""

    model_config = ConfigDict(extra="forbid")

    fix_id: int
    run_id: int
    after_run_id: int | None
    fix: Fix
    previous: str = Field(description="The value before the fix (what undo puts back).")
    state: FixState
    gains: list[DirectionGain]
    predictions: list[PredictionCheck] = Field(default_factory=list, description="Each direction's prediction "
                                               "against the re-measure.")
    why: str
