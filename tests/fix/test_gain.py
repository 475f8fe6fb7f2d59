"""A fix's gain judged against the run's own spread (pure): kept only when every copy after beat every copy
before by more than agreeing runs differ; how sure, as the chance of such a separation by luck."""
from __future__ import annotations

import pytest

from tengig.fix.gain import judge_gain, keep
from tengig.fix.models import DirectionGain

MB = 1e6


def test_copies_after_all_above_the_copies_before_are_a_gain_with_its_chance():
    g = judge_gain("read", [100 * MB, 104 * MB, 102 * MB], [150 * MB, 149 * MB, 155 * MB])
    assert g.verdict == "gain" and g.gain_percent == pytest.approx(150 / 102 * 100 - 100)
    assert g.chance_percent == pytest.approx(5.0)  # 1 / C(6, 3)
    assert g.text == ("SMB read 102.0 MB/s -> 150.0 MB/s (+47.1%): every copy after beat every copy before (before "
                      "100.0-104.0 MB/s over 3 copies, after 149.0-155.0 MB/s over 3; by luck alone 5% of the time)")


def test_overlapping_copies_are_within_the_spread_however_far_the_medians_moved():
    g = judge_gain("write", [100 * MB, 140 * MB], [139 * MB, 150 * MB])
    assert g.verdict == "within-spread"
    assert "within the copies' own spread" in g.text and "by luck" not in g.text


def test_a_separation_smaller_than_agreeing_runs_differ_is_no_gain():
    assert judge_gain("read", [100 * MB], [102 * MB]).verdict == "within-spread"  # +2%: under 3%
    assert judge_gain("read", [100 * MB], [104 * MB]).verdict == "gain"


def test_copies_after_all_below_are_a_loss():
    assert judge_gain("read", [100 * MB, 101 * MB], [80 * MB, 82 * MB]).verdict == "loss"


def test_kept_when_one_direction_gains_and_none_loses():
    gain = judge_gain("read", [100 * MB, 101 * MB], [150 * MB, 152 * MB])
    flat = judge_gain("write", [100 * MB, 101 * MB], [99 * MB, 102 * MB])
    loss = judge_gain("write", [100 * MB, 101 * MB], [80 * MB, 82 * MB])
    assert keep([gain, flat])[0] is True and keep([gain, flat])[1].startswith("a real gain: SMB read")
    kept, why = keep([gain, loss])
    assert kept is False and why.startswith("it cost throughput")
    kept, why = keep([flat])
    assert kept is False and why.startswith("no gain beyond the run's own spread: SMB write")
    assert keep([]) == (False, "nothing was measured after the change to judge it by")


def test_no_copies_is_no_judgement():
    with pytest.raises(ValueError):
        judge_gain("read", [], [1.0])


def test_an_mtu_fix_mends_a_fault_and_stays_unless_it_costs():
    """Within the spread an MTU fix is kept (the mismatch it removes drops full frames); a loss still puts it back;
    a tuning fix within the spread is put back."""
    flat = DirectionGain(direction="read", before=[100e6] * 3, after=[101e6] * 3, before_median=100e6,
                         after_median=101e6, gain_percent=1.0, verdict="within-spread", chance_percent=100.0,
                         text="SMB read flat")
    loss = flat.model_copy(update={"verdict": "loss", "text": "SMB read lost"})
    assert keep([flat], "mtu")[0] is True and "mends a fault" in keep([flat], "mtu")[1]
    assert keep([flat, loss], "mtu")[0] is False
    assert keep([flat], "smb-encryption")[0] is False
