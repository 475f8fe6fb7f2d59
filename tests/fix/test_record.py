"""Predicted against measured, per applied fix, and a rule's record over its last 10 applied fixes: more than 1
outside 15% of the prediction takes its number away ("gain unknown"), the fix stays (pure, on rows shaped as the
fixes table gives them)."""
from __future__ import annotations

from tengig.fix.gain import judge_gain
from tengig.fix.models import Fix, FixPlan, Prediction, Setting
import pytest

from tengig.fix.record import checks, gain_unknown, smb_share, track_record, with_record

SETTING = Setting(platform="system", kind="dataset", object="tgtank/smb", key="recordsize")


def _fix(predicted: float = 400e6) -> Fix:
    p = Prediction(direction="read", measured_bytes_per_s=200e6, predicted_bytes_per_s=predicted, bound="pool",
                   bound_label="pool read", why="...")
    return Fix(name="dataset-recordsize", rule="smb-far-below", client="desk", setting=SETTING, run_read="4096",
               from_value="4K", to_value="128K", call="zfs set recordsize=128K tgtank/smb", undo_call="...",
               phases=["smb"], directions=["read"], predictions=[p], text="recordsize... Predicted: read 200 -> 400")


def _row(name: str, within: bool) -> dict:
    return {"name": name, "state": "kept", "data": {"predictions": [{"direction": "read", "within": within}]}}


def test_each_predicted_direction_is_checked_against_the_re_measure_s_median():
    gains = [judge_gain("read", [200e6, 201e6, 199e6], [380e6, 390e6, 385e6])]
    [c] = checks(_fix(), gains)
    assert c.measured_after_bytes_per_s == 385e6 and round(c.off_percent, 2) == -3.75 and c.within
    [far] = checks(_fix(500e6), gains)
    assert round(far.off_percent) == -23 and not far.within


def test_one_miss_in_ten_keeps_the_number_two_take_it_away():
    rows = [_row("dataset-recordsize", i != 3) for i in range(10)]
    assert track_record(rows, "dataset-recordsize") == (1, 10) and gain_unknown(rows, "dataset-recordsize") is None
    rows[7] = _row("dataset-recordsize", False)
    said = gain_unknown(rows, "dataset-recordsize")
    assert said == ("gain unknown: dataset-recordsize's prediction missed the measured SMB by more than 15% in 2 of "
                    "its last 10 applied fixes")
    # misses older than the last ten, and other rules' misses, do not count
    assert gain_unknown([_row("dataset-recordsize", True)] * 10 + rows, "dataset-recordsize") is None
    assert gain_unknown(rows, "smb-encryption") is None


def test_a_fix_that_lost_its_number_says_gain_unknown_in_place_of_the_figure():
    rows = [_row("dataset-recordsize", False)] * 2
    [fix] = with_record(FixPlan(run_id=1, fixes=[_fix()], words=[]), rows).fixes
    assert fix.gain_unknown.startswith("gain unknown") and "Predicted" not in fix.text
    assert fix.text.endswith("in 2 of its last 2 applied fixes.") and fix.predictions  # kept for the record


def _kept(name: str, after: float, bound: float, state: str = "kept") -> dict:
    return {"name": name, "state": state, "data": {"predictions": [
        {"direction": "read", "within": True, "bound_bytes_per_s": bound, "measured_after_bytes_per_s": after}]}}


def test_smb_s_share_of_its_bound_comes_from_this_nas_s_kept_fixes_the_rule_s_own_first():
    assert smb_share([], "dataset-recordsize", "read") is None
    rows = [_kept("smb-encryption", 90e6, 100e6), _kept("dataset-recordsize", 65e6, 100e6),
            _kept("dataset-recordsize", 60e6, 100e6, state="rolled-back")]  # put back: its bound may have stayed
    assert smb_share(rows, "dataset-recordsize", "read") == (0.65, 1)
    assert smb_share(rows, "dataset-recordsize", "write") is None  # reads and writes apart
    assert smb_share(rows, "dataset-atime", "read") == (pytest.approx(0.775), 2)  # none of its own: every kept fix's
    [fix] = with_record(FixPlan(run_id=1, fixes=[_fix(400e6)], words=[]), rows).fixes
    [p] = fix.predictions
    assert (p.bound_bytes_per_s, p.smb_share, p.predicted_bytes_per_s) == (400e6, 0.65, pytest.approx(260e6))
    assert "SMB read reached 65% of the ceiling left in this NAS's last 1 kept fix measurement(s), so 260" in p.why
    assert fix.text.count("Predicted: ") == 1
