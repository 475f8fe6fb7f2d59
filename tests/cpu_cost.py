"""Where the suite's CPU goes (`--cpu-report FILE`): per test (setup, call and teardown), its wall time, the CPU
pytest's own process and the children it waited for used (getrusage: a tool a test ran, a middlewared it
stopped), and the machine's busy CPU time over the same span (/proc/stat: daemons too, and whatever else ran
beside it). One JSON object per line; at the end the modules that cost the most, by their own CPU. No bound
is set on any of it: it says where to cut, a busy machine moves it."""
from __future__ import annotations

import json
import os
import resource
import time
from collections import defaultdict
from pathlib import Path

import pytest

TOP = 15


def _machine_busy_s() -> float:
    """Busy CPU seconds since boot over all CPUs: every /proc/stat 'cpu' field but idle and iowait."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _own_s() -> tuple[float, float]:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


class CpuReport:
    """Under pytest-xdist each worker appends its tests' lines to the one file (one short write each) and the
    controller, which starts the file and runs no test, lists the modules from it at the end."""

    def __init__(self, path: Path, *, worker: bool = False):
        self.path, self.worker = path, worker
        if not worker:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        wall, busy, (me, kids) = time.monotonic(), _machine_busy_s(), _own_s()
        yield
        me2, kids2 = _own_s()
        row = {"test": item.nodeid, "wall_s": round(time.monotonic() - wall, 2),
               "pytest_cpu_s": round(me2 - me, 2), "children_cpu_s": round(kids2 - kids, 2),
               "machine_busy_s": round(_machine_busy_s() - busy, 2)}
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")

    def pytest_terminal_summary(self, terminalreporter):
        if self.worker:
            return
        per: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        rows = [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]
        for row in rows:
            module = per[row["test"].split("::", 1)[0]]
            module[0] += row["pytest_cpu_s"] + row["children_cpu_s"]
            module[1] += row["machine_busy_s"]
            module[2] += row["wall_s"]
        if not per:
            return
        own = sum(v[0] for v in per.values())
        terminalreporter.write_sep("-", f"CPU by module (own and waited-for children: {own / 60:.1f} CPU-min; "
                                   f"{self.path})")
        for name, (mine, busy, wall) in sorted(per.items(), key=lambda kv: -kv[1][0])[:TOP]:
            terminalreporter.write_line(f"{mine:8.1f} s CPU {busy:8.1f} s machine busy {wall:8.1f} s wall  {name}")


def add_option(parser) -> None:
    """tests/conftest.py's pytest_addoption calls it."""
    parser.addoption("--cpu-report", metavar="FILE", default=None,
                     help="write each test's wall time and CPU (its own, its children's, the machine's) to FILE "
                          "as JSON lines, and list the costliest modules at the end")


def configure(config) -> None:
    """tests/conftest.py's pytest_configure calls it."""
    path = config.getoption("--cpu-report")
    if path:
        worker = hasattr(config, "workerinput")  # a pytest-xdist worker
        config.pluginmanager.register(CpuReport(Path(path), worker=worker), "tengig-cpu-report")
