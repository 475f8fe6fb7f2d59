"""A Linux process's CPU cgroup and its limit, from /proc/PID/cgroup and the cgroup's files under
/sys/fs/cgroup: cgroup v2 (cpu.max, cpu.stat throttled_usec) and v1 (cpu.cfs_quota_us / cpu.cfs_period_us,
cpu.stat throttled_time). Pure: the files come through a reader, so the NAS reads smbd's with `cat`
(bench/phases/smbd_cpu_limit.py) and a desktop its own tools' from its own /proc and /sys (desk/tool_cpu.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from ...errors import ToolOutputError

# Where each hierarchy may be mounted: v2 alone at /sys/fs/cgroup, or beside v1 at .../unified (hybrid)
V1_CPU_DIRS = ("/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu")
V2_DIRS = ("/sys/fs/cgroup", "/sys/fs/cgroup/unified")


class CpuStat(BaseModel):
    nr_periods: int
    nr_throttled: int
    throttled_us: int


class CpuCgroup(BaseModel):
    """A process's CPU cgroup as its kernel describes it (smbd's on the NAS: found once per measurement)."""

    cgroup: str = Field(description="The cgroup's path, e.g. /system.slice/smbd.service.")
    version: Literal[1, 2]
    directory: str = Field(description="Its directory under /sys/fs/cgroup.")
    limit_cores: float | None = Field(description="quota / period: CPUs' worth it may use; None: no limit.")


def cpu_cgroup_of(proc_cgroup: str) -> tuple[Literal[1, 2], str] | None:
    """`/proc/PID/cgroup` -> (1, path) for a v1 hierarchy holding the cpu controller (it is the one that
    enforces a limit when present), else (2, path) from the unified line `0::/path`; None if neither."""
    unified = None
    for line in proc_cgroup.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if "cpu" in controllers.split(","):
            return 1, path
        if controllers == "":
            unified = path
    return (2, unified) if unified is not None else None


def parse_cpu_stat(text: str) -> CpuStat:
    """cpu.stat (v2: throttled_usec; v1: throttled_time in ns) -> CpuStat."""
    values = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().isdigit():
            values[key] = int(value)
    if not values:
        raise ToolOutputError(f"cpu.stat has no counters: {text.strip()[:200]!r}")
    # a cgroup with no bandwidth control (v2 without the cpu controller) has no period counters: none throttled
    throttled = values["throttled_usec"] if "throttled_usec" in values else values.get("throttled_time", 0) // 1000
    return CpuStat(nr_periods=values.get("nr_periods", 0), nr_throttled=values.get("nr_throttled", 0),
                   throttled_us=throttled)


def parse_cpu_max(text: str) -> float | None:
    """v2 cpu.max 'max 100000' or '20000 100000' -> cores (None: no limit)."""
    parts = text.split()
    if len(parts) != 2 or not parts[1].isdigit() or not (parts[0] == "max" or parts[0].isdigit()):
        raise ToolOutputError(f"cpu.max is not 'QUOTA PERIOD': {text.strip()[:100]!r}")
    return None if parts[0] == "max" else int(parts[0]) / int(parts[1])


def parse_cfs_quota(quota: str, period: str) -> float | None:
    """v1 cpu.cfs_quota_us ('-1': no limit) and cpu.cfs_period_us -> cores."""
    q, p = quota.strip(), period.strip()
    if not p.isdigit() or not (q == "-1" or q.isdigit()):
        raise ToolOutputError(f"cpu.cfs_quota_us / cfs_period_us are not numbers: {q[:20]!r} / {p[:20]!r}")
    return None if q == "-1" else int(q) / int(p)


# Reads files (a list of each one's text, or of the lines of single-line files) or None where one cannot be read.
Reader = Callable[..., "list[str] | None"]


def locate_cpu_cgroup(read: Reader, proc_cgroup: str) -> CpuCgroup | None:
    """The CPU cgroup named in ``proc_cgroup`` (a /proc/PID/cgroup path) and its limit, through ``read`` (the
    NAS's files with `cat`, or this machine's own); None where there are no such files (FreeBSD, macOS, a
    kernel without CPU bandwidth control, a /sys without the cgroup hierarchy)."""
    lines = read(proc_cgroup)
    found = cpu_cgroup_of(lines[0]) if lines else None
    if found is None:
        return None
    version, path = found
    for root in (V1_CPU_DIRS if version == 1 else V2_DIRS):
        directory = f"{root}{path.rstrip('/')}" if path != "/" else root
        if read(f"{directory}/cpu.stat") is None:
            continue
        if version == 1:
            quota = read(f"{directory}/cpu.cfs_quota_us", f"{directory}/cpu.cfs_period_us")
            limit = parse_cfs_quota(*quota) if quota and len(quota) == 2 else None
        else:
            cpu_max = read(f"{directory}/cpu.max")
            limit = parse_cpu_max(cpu_max[0]) if cpu_max else None  # the root cgroup has no cpu.max
        return CpuCgroup(cgroup=path, version=version, directory=directory, limit_cores=limit)
    return None
