"""The CPU a joined desktop's tools used (issue 26, item 4), as the desktop measured it (desk/tool_cpu.py, the
Windows kit's TotalProcessorTime) and the NAS bounds it: a finite CPU time no larger than the instruction's time
on the NAS's clock times the CPUs' worth the desktop said its tools may use (plus one scheduler period's
accounting). Over a direction's copies it becomes the cores the SMB client used: its CPU time over the copies'
wall time, which the verdict compares with what the client may use (verdict/advice.client_cpu_bound)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ToolOutputError
from .session import Submission

# CPU time is accounted per scheduler tick and a cgroup's quota per period: a busy tool may show this much more
# than its wall time times its CPUs.
ACCOUNTING_SLACK_SECONDS = 0.1


class CpuOfCopy(BaseModel):
    """One answer's CPU: the tool's CPU time, its wall time, and the CPUs' worth the desktop said it had."""

    cpu_seconds: float
    wall_seconds: float
    cpus: float


class ClientCpu(BaseModel):
    """What the desktop's SMB client used over one direction's copies."""

    model_config = ConfigDict(allow_inf_nan=False)

    cores: float = Field(description="CPU time over wall time, summed over the copies: the cores' worth its SMB "
                         "client used (1.0: one core busy for the whole copy).")
    cpu_seconds: list[float] = Field(description="Each copy's CPU time on the desktop (user + system), s.")
    wall_seconds: list[float] = Field(description="Each copy's wall time on the desktop, s.")
    cpus: float = Field(description="The least CPUs' worth the desktop said its tools may use during the copies "
                        "(its CPUs, or its cgroup's CPU limit).")


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


def over_copies(copies: list[CpuOfCopy]) -> ClientCpu | None:
    """The cores used over a direction's copies that the desktop measured (None: none, or no time to divide by)."""
    wall = sum(c.wall_seconds for c in copies)
    if not copies or wall <= 0:
        return None
    return ClientCpu(cores=sum(c.cpu_seconds for c in copies) / wall, cpu_seconds=[c.cpu_seconds for c in copies],
                     wall_seconds=[c.wall_seconds for c in copies], cpus=min(c.cpus for c in copies))
