"""One rate formatter (units.format_mb_s) and one precision rule: a rate reads the same in every view that
prints it (the verdict's advice, the terminal report, the Markdown report, the run list, a metric), so a
100 Mb/s link's 11.77 MB/s is never 11.77 in one and 11.8 in another."""
from __future__ import annotations

import pytest

from tengig.bench.run.report_text import verdict_table
from tengig.cli.results_views import figure, list_table
from tengig.results.markdown import verdict_section
from tengig.units import MB, format_mb_s
from tengig.verdict.advice import mb_s
from tengig.verdict.models import Ceiling, DirectionVerdict, Target, Verdict



@pytest.mark.parametrize("bytes_per_s, shown", [
    (11.77 * MB, "11.77 MB/s"),  # a 100 Mb/s link's goodput: two decimals below 100 MB/s
    (0.5 * MB, "0.50 MB/s"),
    (99.994 * MB, "99.99 MB/s"),
    (99.996 * MB, "100.0 MB/s"),  # rounds up to 100: one decimal, as every rate from 100 up
    (117.7 * MB, "117.7 MB/s"),
    (1176.94 * MB, "1176.9 MB/s"),  # 10 Gb/s: one decimal
    (None, "-"),  # not measured
])
def test_the_precision_rule(bytes_per_s, shown):
    assert format_mb_s(bytes_per_s) == shown


def _verdict(rate: float) -> Verdict:
    target = Target(name="ssd", title="an SSD", read_bytes_per_s=rate, source="review")
    link = Ceiling(component="link", direction="read", bytes_per_s=rate, provenance="measured", label="iperf3")
    direction = DirectionVerdict(direction="read", smb_bytes_per_s=rate, target_bytes_per_s=rate, beats_target=True,
                                 margin_percent=0.0, bottleneck="link", ceilings=[link])
    return Verdict(target=target, directions=[direction], advice=[], summary="ties")


@pytest.mark.parametrize("rate", [11.77 * MB, 1176.94 * MB])
def test_every_view_prints_a_rate_the_same_way(rate):
    shown = format_mb_s(rate)
    row = {"id": 1, "started_utc": "-", "kind": "bench", "status": "done", "system": "lab", "clients": 1,
           "smb_read_bytes_per_s": rate, "smb_write_bytes_per_s": None, "target": "ssd", "result": "-",
           "bottleneck": "-"}
    assert mb_s(rate) == shown
    assert figure(rate, "B/s") == shown
    assert f" {shown} " in list_table([row])
    assert shown in "\n".join(verdict_table(_verdict(rate)))
    assert f"| {shown} |" in "\n".join(verdict_section("run", _verdict(rate)))
