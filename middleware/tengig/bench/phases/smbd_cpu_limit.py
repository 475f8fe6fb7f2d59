"""Whether smbd was held back by a CPU limit while a client copied: the CPU cgroup of the NAS's smbd
(TrueNAS SCALE runs it as the systemd service smbd.service; `systemctl set-property smbd
CPUQuota=20%` caps it), its limit, and the share of its scheduling periods the kernel throttled during
the copies. Read on the NAS itself from /proc and /sys/fs/cgroup, cgroup v2 (cpu.max, cpu.stat
throttled_usec) and v1 (cpu.cfs_quota_us / cpu.cfs_period_us, cpu.stat throttled_time).

The parsers are pure (backends/linux/cgroup_cpu.py, a desktop's client reads its own cgroup with them);
`find_cpu_cgroup` (once per measurement) and `read_cpu_stat` (around each copy) run
`cat` on the NAS through the benchmark's context."""
from __future__ import annotations

from pydantic import BaseModel, Field

from ...backends.linux.cgroup_cpu import CpuCgroup, CpuStat, locate_cpu_cgroup, parse_cpu_stat
from ..context import BenchContext

T = 10


def _cat(ctx: BenchContext, nas: str, *paths: str) -> list[str] | None:
    done = ctx.run(nas, ["cat", *paths], timeout=T, check=False, record=False)
    if done.returncode != 0:
        return None
    return [done.stdout] if len(paths) == 1 else done.stdout.splitlines()


def find_cpu_cgroup(ctx: BenchContext, nas: str, pid: int) -> CpuCgroup | None:
    """The CPU cgroup of process ``pid`` on the NAS (smbd) and its limit; None where the NAS has no such
    files (FreeBSD, a kernel without CPU bandwidth control)."""
    return locate_cpu_cgroup(lambda *paths: _cat(ctx, nas, *paths), f"/proc/{pid}/cgroup")


def read_cpu_stat(ctx: BenchContext, nas: str, cgroup: CpuCgroup) -> CpuStat | None:
    """The cgroup's counters now (None if it is gone)."""
    stat = _cat(ctx, nas, f"{cgroup.directory}/cpu.stat")
    return parse_cpu_stat(stat[0]) if stat else None


class SmbdCpuLimit(BaseModel):
    """What smbd's CPU cgroup did during one direction's copies."""

    cgroup: str
    limit_cores: float | None = Field(description="Its limit, CPUs' worth; None: none.")
    throttled_percent: float | None = Field(description="Scheduling periods throttled during the copies, %; None: "
                                            "no period counted (no limit).")


def over_copies(cgroup: CpuCgroup | None, pairs: list[tuple[CpuStat, CpuStat]]) -> SmbdCpuLimit | None:
    """The limit and the throttled share summed over each copy's (before, after) counters."""
    if cgroup is None or not pairs:
        return None
    periods = sum(a.nr_periods - b.nr_periods for b, a in pairs)
    throttled = sum(a.nr_throttled - b.nr_throttled for b, a in pairs)
    return SmbdCpuLimit(cgroup=cgroup.cgroup, limit_cores=cgroup.limit_cores,
                        throttled_percent=100 * throttled / periods if periods > 0 else None)
