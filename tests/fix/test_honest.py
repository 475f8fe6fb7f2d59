"""Predicted against measured (fix/honest.py): each predicted direction beside the after-copies' median."""
from tengig.fix.gain import judge_gain
from tengig.fix.honest import check_predictions
from tengig.fix.models import Prediction

MB = 1e6


def _prediction(direction, predicted):
    return Prediction(direction=direction, measured_bytes_per_s=100 * MB, predicted_bytes_per_s=predicted,
                      bound="link", bound_label="link", why="")


def test_within_and_outside_fifteen_percent_of_the_prediction():
    gains = [judge_gain("read", [100 * MB] * 3, [110 * MB, 112 * MB, 111 * MB]),
             judge_gain("write", [100 * MB] * 3, [101 * MB, 99 * MB, 100 * MB])]
    read, write = check_predictions([_prediction("read", 118 * MB), _prediction("write", 140 * MB)], gains)
    assert (read.direction, read.measured_bytes_per_s, read.within) == ("read", 111 * MB, True)
    assert read.off_percent == round(100 * (111 - 118) / 118, 1)
    assert (write.within, write.off_percent) == (False, round(100 * (100 - 140) / 140, 1))
    assert "outside +-15%" in write.text and "predicted 140.0 MB/s" in write.text


def test_a_direction_not_measured_again_is_left_out():
    gains = [judge_gain("read", [100 * MB] * 2, [100 * MB] * 2)]
    assert [c.direction for c in check_predictions([_prediction("write", 140 * MB)], gains)] == []
