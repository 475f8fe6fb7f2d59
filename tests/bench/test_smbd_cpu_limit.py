"""smbd's CPU cgroup: parsers on recorded cgroup files, and what the verdict says of each measured cause."""
from __future__ import annotations

from pathlib import Path

import pytest

from tengig.backends.linux.cgroup_cpu import CpuCgroup, cpu_cgroup_of, parse_cfs_quota, parse_cpu_max, parse_cpu_stat
from tengig.bench.phases.smbd_cpu_limit import over_copies
from tengig.errors import ToolOutputError
from tengig.verdict.advice import smb_cause
from tengig.verdict.models import Facts


FIX = Path(__file__).resolve().parents[1] / "fixtures" / "cgroup"


def _read(name: str) -> str:
    return (FIX / name).read_text()


def test_the_cpu_cgroup_from_proc_and_its_limit_from_recorded_files():
    assert cpu_cgroup_of(_read("proc-cgroup-v1-hybrid.txt")) == (1, "/tengig-rec-held")  # v1 cpu, not 0::/
    assert cpu_cgroup_of("0::/system.slice/smbd.service\n") == (2, "/system.slice/smbd.service")  # v2 only
    assert cpu_cgroup_of("garbage\n") is None
    assert parse_cfs_quota(_read("cpu.cfs_quota_us-limited.txt"), _read("cpu.cfs_period_us.txt")) == 0.2
    assert parse_cfs_quota(_read("cpu.cfs_quota_us-root.txt"), _read("cpu.cfs_period_us.txt")) is None
    assert parse_cpu_max("max 100000\n") is None and parse_cpu_max("20000 100000\n") == 0.2
    for bad in ("", "20000", "lots 100000"):
        with pytest.raises(ToolOutputError):
            parse_cpu_max(bad)
    stat = parse_cpu_stat(_read("cpu.stat-v1-throttled.txt"))
    assert (stat.nr_periods, stat.nr_throttled, stat.throttled_us) == (11, 11, 748601)  # ns -> us
    assert parse_cpu_stat(_read("cpu.stat-v2-no-cpu-controller.txt")).nr_periods == 0  # no bandwidth control
    with pytest.raises(ToolOutputError):
        parse_cpu_stat("not a stat file")


CGROUP = CpuCgroup(cgroup="/system.slice/smbd.service", version=2, directory="/sys/fs/cgroup/system.slice/smbd.service",
                   limit_cores=0.2)


def _stat(periods: int, throttled: int):
    return parse_cpu_stat(f"nr_periods {periods}\nnr_throttled {throttled}\nthrottled_usec 0\n")


def test_the_throttled_share_sums_each_copys_periods():
    pairs = [(_stat(100, 10), _stat(150, 50)), (_stat(200, 60), _stat(250, 80))]  # 40 + 20 of 50 + 50
    held = over_copies(CGROUP, pairs)
    assert held.throttled_percent == 60.0 and held.limit_cores == 0.2
    unlimited = CGROUP.model_copy(update={"limit_cores": None})
    assert over_copies(unlimited, [(_stat(5, 0), _stat(5, 0))]).throttled_percent is None  # no period counted
    assert over_copies(CGROUP, []) is None and over_copies(None, pairs) is None


def test_the_verdict_names_the_measured_cause_and_only_that():
    held = Facts(smbd_cpu_percent=19.0, smbd_cgroup="/system.slice/smbd.service", smbd_cpu_limit_cores=0.2,
                 smbd_throttled_percent=91.0)
    cause = smb_cause(held)
    assert cause.startswith("smbd, held back by its CPU limit") and "0.2 of a core" in cause and "91%" in cause
    assert "/system.slice/smbd.service" in cause
    # the same limit, hardly throttled: not the limit's doing; smbd idle-ish: not smbd at all
    calm = held.model_copy(update={"smbd_throttled_percent": 5.0})
    assert smb_cause(calm).startswith("not smbd (it used 19% of one core, not throttled (5% of periods))")
    busy = Facts(smbd_cpu_percent=97.0)
    assert smb_cause(busy).startswith("smbd's CPU: it used 97% of one core")
    assert smb_cause(Facts()) is None  # nothing measured of smbd: no claim
