"""How sure the verdict is: a claim whose runs reach the figure it is compared with is called close, in
words with its numbers; clear claims and single runs are said to be so."""
from tengig.verdict.ceilings import tcp_goodput_bps
from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts
from tengig.verdict.targets import find_target

MB = 10**6
HDD = find_target("hdd-15k-best")
LINK_1G = tcp_goodput_bps(1e9, 1500) / 8  # 117.7 MB/s


def runs(component, values, direction="read"):
    values = [v * MB for v in values]
    return Ceiling(component=component, direction=direction, bytes_per_s=sorted(values)[len(values) // 2],
                   provenance="measured", label=component, runs=values)


def link(direction="read"):
    return Ceiling(component="link", direction=direction, bytes_per_s=LINK_1G, provenance="estimated", label="link")


def read(verdict):
    return next(d for d in verdict.directions if d.direction == "read")


def test_a_pool_whose_runs_straddle_the_link_is_a_close_call_named_with_both():
    v = judge(HDD, [runs("pool", [110, 115, 125]), link(), runs("smb", [105, 106, 107])], Facts())
    r = read(v)
    assert r.bottleneck == "pool"
    assert r.close_calls == ["the bottleneck is the pool or the link: their runs overlap (pool 110.0-125.0 MB/s over 3 "
                             "runs, link 117.7 MB/s (estimated))"]
    assert "Not sure: read: the bottleneck is the pool or the link" in v.summary


def test_the_same_pool_clear_of_the_link_in_every_run_is_sure():
    v = judge(HDD, [runs("pool", [300, 320, 350]), link(), runs("smb", [105, 106, 107])], Facts())
    assert read(v).bottleneck == "link" and read(v).close_calls == []
    assert "Sure: every claim holds in every run." in v.summary


def test_smb_runs_straddling_the_target_do_not_claim_a_win_or_a_loss_for_sure():
    v = judge(HDD, [runs("pool", [900, 950]), runs("network", [1100, 1150]), runs("smb", [215, 224, 230])], Facts())
    r = read(v)
    assert r.beats_target is True  # the median 224 beats 223.4 ...
    assert r.close_calls == ["beats or loses to the target: SMB's runs (215.0-230.0 MB/s over 3 runs) straddle its "
                             "223.4 MB/s"]  # ... but not in every run, and the verdict says so


def test_smb_runs_reaching_the_far_below_line_are_a_close_call():
    # 70% of the link's 117.7 MB/s is 82.4 MB/s: SMB's runs 78-86 MB/s sit on that line
    v = judge(HDD, [runs("pool", [400, 410]), link(), runs("smb", [78, 86])], Facts())
    assert any(c.startswith("SMB itself or the link: SMB's runs (78.00-86.00 MB/s over 2 runs) reach 70% of the "
                            "link's 117.7 MB/s") for c in read(v).close_calls), read(v).close_calls


def test_one_run_each_says_the_noise_is_unknown():
    one = [Ceiling(component="pool", direction="read", bytes_per_s=400 * MB, provenance="measured", label="pool"),
           link(), Ceiling(component="smb", direction="read", bytes_per_s=110 * MB, provenance="measured", label="smb")]
    v = judge(HDD, one, Facts())
    assert read(v).close_calls == []
    assert "How sure: each figure was measured once, so its run-to-run noise is unknown." in v.summary


def test_a_network_close_to_the_link_is_the_link_at_work_not_a_close_call():
    v = judge(HDD, [runs("pool", [400, 420]), link(), runs("network", [116, 117.5]), runs("smb", [108, 110])], Facts())
    assert read(v).bottleneck == "link" and read(v).close_calls == []
