"""tengig.results.compare says which ceiling of which verdict moved between two runs, and where the
bottleneck went: the question "before and after the new NIC" asks."""
from __future__ import annotations

import pytest

from tengig.results.export import compare_runs
from tengig.results.models import RunRecord
from tengig.verdict.ceilings import tcp_goodput_bps
from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts
from tengig.verdict.targets import find_target

MB = 10**6
TARGET = find_target("hdd-15k-best")  # 223.4 MB/s read


def _run(run_id: int, link_bps: float, smb: float) -> RunRecord:
    chain = [Ceiling(component="pool", direction="read", bytes_per_s=400 * MB, provenance="measured", label="fio"),
             Ceiling(component="link", direction="read", bytes_per_s=tcp_goodput_bps(link_bps) / 8,
                     provenance="estimated", label="ports"),
             Ceiling(component="smb", direction="read", bytes_per_s=smb, provenance="measured", label="smb")]
    verdict = judge(TARGET, chain, Facts()).model_dump(mode="json")
    results = {"clients": [{"client": "desk", "verdict": verdict}], "aggregate_verdict": verdict}
    return RunRecord(id=run_id, started=1000.0 * run_id, kind="all", status="success", results=results)


def test_compare_names_the_ceiling_that_moved_and_the_bottleneck():
    got = compare_runs(_run(1, 1e9, 110 * MB), _run(2, 2e9, 220 * MB))
    link = next(r for r in got["ceilings"] if (r["scope"], r["component"]) == ("aggregate", "link"))
    pool = next(r for r in got["ceilings"] if (r["scope"], r["component"]) == ("aggregate", "pool"))
    assert link["moved"] and link["delta_percent"] == pytest.approx(100.0)
    assert link["bottleneck_a"] and link["bottleneck_b"]
    assert not pool["moved"] and pool["delta_percent"] == 0
    assert "aggregate read: link 117.7 -> 235.4 MB/s (+100.0%), the bottleneck in both" in got["moved"]
    assert "desk read: smb 110.0 -> 220.0 MB/s (+100.0%)" in got["moved"]
    assert not any(" pool " in line for line in got["moved"])


def test_a_bottleneck_that_changed_is_said_even_when_nothing_moved_much():
    # 2 x 1 Gb/s: the link (235.4 MB/s) bounds; with a pool at 230 MB/s the pool does, the link unchanged
    a = _run(1, 2e9, 200 * MB)
    b = _run(2, 2e9, 200 * MB)
    pool = b.results["aggregate_verdict"]["directions"][0]["ceilings"][0]
    pool["bytes_per_s"] = 230 * MB
    b.results["aggregate_verdict"] = judge(TARGET, [Ceiling(**c) for c in
                                                    b.results["aggregate_verdict"]["directions"][0]["ceilings"]],
                                           Facts()).model_dump(mode="json")
    lines = compare_runs(a, b)["moved"]
    assert "aggregate read: link 235.4 -> 235.4 MB/s (+0.0%), the bottleneck in a only" in lines
    assert "aggregate read: pool 400.0 -> 230.0 MB/s (-42.5%), the bottleneck in b only" in lines
