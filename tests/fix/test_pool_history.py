"""The pool figure a fix's prediction stands on: the median of the same pool's last runs on this NAS (the run's
own first), from the recorded results database's two runs (tests/fixtures/results/lab-runs.sqlite3: pool tgtank
read 376.1 then 300.4 MB/s, write 225.8 then 390.6 MB/s, host vm)."""
from __future__ import annotations

import pytest

from tengig.fix.apply import fix_view, succeeded_runs
from tengig.fix.pool_history import POOL_RUNS, earlier_figures, steady, with_pool_history
from tengig.fix.predict import chain_predictions
from tengig.fix.run_view import view_of
from tengig.verdict.models import Ceiling, DirectionVerdict

from .recorded import recorded_store

READ = ("read", "pool tgtank fio SEQ1M Q8T1 read")
WRITE = ("write", "pool tgtank fio SEQ1M Q8T1 write")


@pytest.fixture
def store(tmp_path):
    return recorded_store(tmp_path)


def _pool(view, client: str, direction: str) -> Ceiling:
    verdict = next(c.verdict for c in view.clients if c.name == client)
    d = next(d for d in verdict.directions if d.direction == direction)
    return next(c for c in d.ceilings if c.component == "pool")


def test_the_figures_before_are_the_same_pool_s_on_the_same_nas_earlier_each_run_once(store):
    run1, run2 = store.get(1), store.get(2)
    # two desktops in run 1 carry the same pool ceiling: the run counts once
    assert earlier_figures(run2, [run2, run1]) == {READ: [pytest.approx(376.1e6, rel=1e-3)],
                                                   WRITE: [pytest.approx(225.8e6, rel=1e-3)]}
    assert earlier_figures(run1, [run2, run1]) == {}  # run 2 came after it
    other_host = run1.model_copy(update={"environment": run1.environment.model_copy(update={"hostname": "nas2"})})
    other_pool = run1.model_copy(update={"results": {**run1.results, "pool": {**run1.results["pool"],
                                                                              "pool": "tank"}}})
    failed = run1.model_copy(update={"status": "failed"})
    assert earlier_figures(run2, [other_host, other_pool, failed]) == {}
    many = [run1.model_copy(update={"id": 10 + i}) for i in range(POOL_RUNS + 2)]
    assert len(earlier_figures(run2, many)[READ]) == POOL_RUNS - 1


def test_the_prediction_s_view_carries_the_median_and_says_whose_the_verdict_keeps_its_own(store):
    run2 = store.get(2)
    original = view_of(run2)
    view = with_pool_history(original, [store.get(1)])
    for client in ("desk", "lab"):
        read = _pool(view, client, "read")
        assert read.bytes_per_s == pytest.approx((300.4e6 + 376.1e6) / 2, rel=1e-3)
        assert read.label == ("pool tgtank fio SEQ1M Q8T1 read, the median of its last 2 runs on this NAS "
                              "(300.4 MB/s, 376.1 MB/s; this run's first)")
        assert _pool(view, client, "write").bytes_per_s == pytest.approx((390.6e6 + 225.8e6) / 2, rel=1e-3)
    # the run's own view, and its verdict, keep the run's figure
    assert _pool(original, "desk", "read").bytes_per_s == pytest.approx(300.4e6, rel=1e-3)
    assert _pool(original, "desk", "read").label == "pool tgtank fio SEQ1M Q8T1 read"
    # the store's own: run 2 is the newest, run 1 its history; run 1 alone has none
    runs = succeeded_runs(store)
    assert _pool(fix_view(run2, runs), "desk", "read").bytes_per_s == pytest.approx(338.25e6, rel=1e-3)
    assert _pool(fix_view(store.get(1), runs), "desk", "read").bytes_per_s == pytest.approx(376.1e6, rel=1e-3)


def test_a_pool_bound_prediction_takes_the_median_a_link_or_an_estimate_is_left_alone():
    def ceiling(component, provenance, mb, label):
        return Ceiling(component=component, direction="read", bytes_per_s=mb * 1e6, provenance=provenance,
                       label=label)

    pool = ceiling("pool", "measured", 324, "pool tgtank fio SEQ1M Q8T1 read")
    link = ceiling("link", "estimated", 1180, "link 10 Gb/s TCP goodput at MTU 1500 bytes")
    assert steady(link, [400e6]) is link and steady(pool, []) is pool
    steadied = steady(pool, [398e6, 401e6, 396e6])
    assert (steadied.bytes_per_s, steadied.runs) == (397e6, [324e6, 398e6, 401e6, 396e6])
    dv = DirectionVerdict(direction="read", smb_bytes_per_s=200e6, target_bytes_per_s=223.4e6, beats_target=False,
                          margin_percent=-10.5, bottleneck="smb",
                          ceilings=[steadied, link, ceiling("network", "measured", 1100, "iperf3 read"),
                                    ceiling("smb", "measured", 200, "SMB read")])
    [p] = chain_predictions([dv], ["read"], "recordsize 4K")
    assert (p.bound, p.predicted_bytes_per_s) == ("pool", 397e6)
    assert "the median of its last 4 runs on this NAS (324.0 MB/s, 398.0 MB/s" in p.why
