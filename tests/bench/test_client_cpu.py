"""The NAS bounds the CPU time a desktop says its tools used (issue 26, item 4): finite (the model), and no more
than the instruction's time on the NAS's clock times the CPUs' worth the desktop said it may use; over a
direction's copies it becomes the cores its SMB client used, which the verdict reads."""
from __future__ import annotations

import pytest
from pydantic import ValidationError

from tengig.bench.join.client_cpu import ACCOUNTING_SLACK_SECONDS, checked_cpu
from tengig.bench.phases.client_cpu_results import over_copies
from tengig.join_protocol.messages import Submission
from tengig.errors import ToolOutputError

pytestmark = pytest.mark.abuse  # pure: no lab


def _sub(**fields) -> Submission:
    return Submission(instruction=3, exit_code=0, **{"seconds": 2.0, **fields})


def test_a_figure_no_desktop_could_have_used_is_refused_naming_it():
    with pytest.raises(ToolOutputError, match=r"desk reports its SMB read used 5\.000 s of CPU, more than the "
                       r"2\.100 s it took on the NAS's clock on the 2 CPU\(s\) it says it has allow \(4\.300 s\)"):
        checked_cpu("desk", "SMB read", _sub(cpu_seconds=5.0, cpus=2), 2.1)
    # a cgroup's 0.3 of a core for 2.1 s: 0.63 s at most, and one period's accounting
    with pytest.raises(ToolOutputError, match="0.3 CPU"):
        checked_cpu("desk", "SMB read", _sub(cpu_seconds=0.9, cpus=0.3), 2.1)
    assert checked_cpu("desk", "SMB read", _sub(cpu_seconds=0.63 + ACCOUNTING_SLACK_SECONDS, cpus=0.3), 2.1)
    with pytest.raises(ToolOutputError, match=r"not how many CPUs it may use \(cpus\)"):
        checked_cpu("desk", "iperf3", _sub(cpu_seconds=0.5), 2.1)
    for bad in ({"cpu_seconds": float("inf"), "cpus": 2}, {"cpu_seconds": -1.0, "cpus": 2},
                {"cpu_seconds": 1.0, "cpus": 0}, {"cpu_seconds": 1.0, "cpus": float("nan")}):
        with pytest.raises(ValidationError):
            _sub(**bad)
    assert checked_cpu("desk", "SMB read", _sub(), 2.1) is None  # not measured: unknown


def test_the_cores_used_are_cpu_over_wall_summed_over_the_copies():
    copies = [checked_cpu("desk", "SMB read", _sub(cpu_seconds=0.5, cpus=0.3, seconds=2.0), 2.1),
              checked_cpu("desk", "SMB read", _sub(cpu_seconds=0.7, cpus=8, seconds=0.0), 2.0)]  # no time of its own
    used = over_copies(copies)
    assert used.cores == pytest.approx(1.2 / 4.0) and used.cpus == 0.3 and used.wall_seconds == [2.0, 2.0]
    assert over_copies([]) is None
