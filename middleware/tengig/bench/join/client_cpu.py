"""The CPU a joined desktop's tools used (issue 26, item 4), as the desktop measured it (desk/tool_cpu.py, the
Windows kit's TotalProcessorTime) and the NAS bounds it: a finite CPU time no larger than the instruction's time
on the NAS's clock times the CPUs' worth the desktop said its tools may use (plus one scheduler period's
accounting). Over a direction's copies it becomes the cores the SMB client used: its CPU time over the copies'
wall time, which the verdict compares with what the client may use (verdict/advice.client_cpu_bound)."""
from __future__ import annotations

from ...errors import ToolOutputError
from ..phases.client_cpu_results import CpuOfCopy
from ...join_protocol.messages import Submission

# CPU time is accounted per scheduler tick and a cgroup's quota per period: a busy tool may show this much more
# than its wall time times its CPUs.
ACCOUNTING_SLACK_SECONDS = 0.1


def checked_cpu(client: str, tool: str, sub: Submission, nas_seconds: float | None) -> CpuOfCopy | None:
    """The answer's CPU time, refused (ToolOutputError naming the figures) when no desktop could have used it:
    more than ``nas_seconds`` (the instruction's time on the NAS's clock; the desktop's own when unknown) times
    the CPUs it said it has. None when the desktop did not measure it."""
    if sub.cpu_seconds is None:
        return None
    if sub.cpus is None:
        raise ToolOutputError(f"{client} reports its {tool} used {sub.cpu_seconds:.3f} s of CPU but not how many "
                              "CPUs it may use (cpus): the figure cannot be checked (the run is not trusted)")
    window = nas_seconds if nas_seconds is not None else sub.seconds
    most = window * sub.cpus + ACCOUNTING_SLACK_SECONDS
    if sub.cpu_seconds > most:
        raise ToolOutputError(
            f"{client} reports its {tool} used {sub.cpu_seconds:.3f} s of CPU, more than the {window:.3f} s it took "
            f"on the NAS's clock on the {sub.cpus:g} CPU(s) it says it has allow ({most:.3f} s): its numbers are not "
            "what its tools did (the run is not trusted)")
    wall = sub.seconds if 0 < sub.seconds <= window else window
    return CpuOfCopy(cpu_seconds=sub.cpu_seconds, wall_seconds=wall, cpus=sub.cpus)
