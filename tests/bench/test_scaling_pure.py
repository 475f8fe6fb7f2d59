"""The scaling phase's pure parts: the thread counts, when a sweep stops and what it says, the member that
stands out, and the verdict's pool ceiling and facts from a sweep."""
import pytest

from tengig.bench.phases.pool import PoolBenchResult, pool_facts
from tengig.bench.phases.pool_members import MemberLoad
from tengig.bench.phases.scaling import ScalingResult, ScalingStep, ScalingSweep, fio_scaling_argv, stop_reason, thread_counts
from tengig.verdict.members import dragging_text


MB = 10**6


def step(threads, mb, gain=None):
    return ScalingStep(threads=threads, bytes_per_s=mb * MB, bytes=128 * 2**20, gain_percent=gain)


def test_thread_counts_double_up_to_the_cores():
    assert thread_counts(1) == [1]
    assert thread_counts(2) == [1, 2]
    assert thread_counts(8) == [1, 2, 4, 8]
    assert thread_counts(6) == [1, 2, 4, 6]
    assert thread_counts(1000)[-1] == 64


def test_a_step_under_5_percent_stops_the_sweep_and_says_so():
    counts = [1, 2, 4, 8]
    assert stop_reason([step(1, 100)], counts) is None
    assert stop_reason([step(1, 100), step(2, 180, 80.0)], counts) is None
    assert stop_reason([step(1, 100), step(2, 180, 80.0), step(4, 185.6, 3.1)], counts) == \
        "4 threads: +3.1% over 2: stopped"
    assert stop_reason([step(1, 100), step(2, 95, -5.0)], counts) == "2 threads: -5.0% over 1: stopped"
    assert stop_reason([step(1, 100), step(2, 180, 80.0)], [1, 2]) == \
        "2 thread(s): the NAS's 2 cores, the most it runs: stopped"


def test_each_thread_its_own_file_and_the_write_on_the_pool_before_the_clock_stops():
    argv = fio_scaling_argv("write", "/mnt/tank/s/scale-4", 4, 32 * 2**20, "libaio")
    assert "--numjobs=4" in argv and "--directory=/mnt/tank/s/scale-4" in argv and "--group_reporting" in argv
    assert not any(a.startswith("--filename=") for a in argv)  # fio names one file per job
    assert "--end_fsync=1" in argv and "--refill_buffers" in argv
    read = fio_scaling_argv("read", "/mnt/tank/s/scale-4", 4, 32 * 2**20, "libaio")
    assert "--end_fsync=1" not in read
    assert [a for a in read if a.startswith("--name=")] == [a for a in argv if a.startswith("--name=")]  # same files


def test_the_member_that_stands_out_is_named():
    assert dragging_text({"sdb": 6.0, "sdc": 41.0, "sdd": 5.0}, {}) == "sdc: 41.0 ms average wait, the others 5.5 ms"
    assert dragging_text({"sdb": 6.0, "sdc": 9.0}, {}) is None  # not twice the others
    assert dragging_text({"sdb": 0.5, "sdc": 3.0}, {}) is None  # twice, but a few ms is ordinary
    assert dragging_text({"sdc": 41.0}, {}) is None  # one member: nothing to compare with
    assert dragging_text({}, {"loop1": 66.0, "loop3": 6.0}) == "loop1: busy 66% of the time, the others 6%"


def scaled_pool():
    sweep = ScalingSweep(direction="read", steps=[step(1, 100), step(2, 180, 80.0), step(4, 185.6, 3.1)],
                         best_threads=4, best_bytes_per_s=185.6 * MB, stopped="4 threads: +3.1% over 2: stopped")
    members = [MemberLoad(name="sdb", wait_ms=6.0, busy_percent=40.0), MemberLoad(name="sdc", wait_ms=41.0)]
    return PoolBenchResult(pool="tank", dataset="tank/s", preset="full", working_set_bytes=2**30, arc_max_bytes=2**30,
                           arc_source="test", recordsize_bytes=2**17, compressratio=1.0, phases=[],
                           scaling=ScalingResult(cores=4, bytes_per_step=2**30, sweeps=[sweep], members=members))


def test_the_pool_ceiling_is_the_best_thread_count_and_says_which():
    (read,) = scaled_pool().ceilings()
    assert read.bytes_per_s == 185.6 * MB
    assert read.label == "pool tank fio SEQ1M Q8T4 read (4 thread(s), the best of 1, 2, 4)"


def test_the_sweep_becomes_the_advice_facts():
    facts = pool_facts(scaled_pool())
    assert facts["pool_member_wait_ms"] == {"sdb": 6.0, "sdc": 41.0}
    assert facts["pool_member_busy_percent"] == {"sdb": 40.0}
    assert facts["pool_one_thread_bps"] == {"read": 100 * MB}
    assert (facts["pool_best_thread_bps"], facts["pool_best_threads"]) == ({"read": 185.6 * MB}, {"read": 4})
    assert pool_facts(None) == {}


def test_the_text_report_shows_the_sweep_and_the_disk_that_stands_out():
    from tengig.bench.run.report_text import scaling_lines

    pool = scaled_pool()
    pool.scaling.dragging = "sdc: 41.0 ms average wait, the others 6.0 ms"
    lines = scaling_lines(pool.scaling)
    assert lines[1] == ("    read  1: 100.0 MB/s, 2: 180.0 MB/s, 4: 185.6 MB/s; 4 threads: +3.1% over 2: stopped; "
                        "the verdict uses 4")
    assert "    disk sdc: 41.0 ms average wait" in lines
    assert lines[-1] == "    stands out: sdc: 41.0 ms average wait, the others 6.0 ms"


def test_the_verdict_says_which_thread_count_it_used():
    from tengig.verdict.judge import judge
    from tengig.verdict.models import Ceiling, Facts
    from tengig.verdict.targets import find_target

    pool = scaled_pool()
    smb = Ceiling(component="smb", direction="read", bytes_per_s=180 * MB, provenance="measured", label="smb")
    net = Ceiling(component="network", direction="read", bytes_per_s=1170 * MB, provenance="measured", label="net")
    verdict = judge(find_target("ssd-sata-870-evo"), [*pool.ceilings(), smb, net],
                    Facts(**pool_facts(pool)))
    assert "the pool, ceiling 185.6 MB/s at 4 thread(s), the best of the thread sweep" in verdict.summary
    assert any(a.rule == "pool-needs-threads" and "read 100.0 MB/s with 1 thread, 185.6 MB/s with 4" in a.text
               for a in verdict.advice)
    assert any(a.rule == "pool-member-dragging" and "sdc: 41.0 ms average wait, the others 6.0 ms" in a.text
               for a in verdict.advice)


def test_the_aggregate_verdict_says_which_thread_count_it_used_and_gives_the_sweeps_advice():
    """Several desktops at once: the pool serves all of them, so what its sweep found reaches the aggregate
    verdict as it reaches each client's (judged_report, the suite's own step)."""
    from types import SimpleNamespace

    from tengig.bench.context import BenchContext
    from tengig.bench.run.suite import BenchRunRequest, judged_report
    from tengig.verdict.targets import find_target
    from tests.bench.test_aggregate import _client, _together

    clients = [_client("desk", "eth1", 940e6), _client("lab", "eth2", 940e6)]
    report = judged_report(BenchContext(hosts=None), SimpleNamespace(name="nas"), BenchRunRequest(),
                           find_target("ssd-sata-870-evo"), scaled_pool(), clients, {"desk": {}, "lab": {}},
                           _together(180 * MB, 150 * MB))
    verdict = report.aggregate_verdict
    assert next(d for d in verdict.directions if d.direction == "read").bottleneck == "pool"
    assert "the pool, ceiling 185.6 MB/s at 4 thread(s), the best of the thread sweep" in verdict.summary
    assert {"pool-needs-threads", "pool-member-dragging"} <= {a.rule for a in verdict.advice}


def test_the_markdown_report_shows_the_sweep_and_the_thread_count_the_verdict_used():
    from markdown_it import MarkdownIt

    from tengig.results.markdown import _pool_section

    pool = scaled_pool()
    pool.scaling.dragging = "sdc: 41.0 ms average wait, the others 6.0 ms"
    text = "\n".join(_pool_section(pool.model_dump(mode="json")))
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert ("<td>read</td>\n<td>100.0 MB/s</td>\n<td>180.0 MB/s</td>\n<td>185.6 MB/s</td>\n"
            "<td>4 threads: +3.1% over 2: stopped</td>\n<td>4</td>") in html
    assert "<td>sdc</td>\n<td>41.0 ms</td>\n<td>-</td>" in html
    assert "Stands out: sdc: 41.0 ms average wait, the others 6.0 ms." in html
