"""What a joined desktop's SMB client used of its CPU (the figures; bench/join/client_cpu.py checks each
answer's): one copy's CPU time, wall time and CPUs, and a direction's cores used over its copies."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


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


def over_copies(copies: list[CpuOfCopy]) -> ClientCpu | None:
    """The cores used over a direction's copies that the desktop measured (None: none, or no time to divide by)."""
    wall = sum(c.wall_seconds for c in copies)
    if not copies or wall <= 0:
        return None
    return ClientCpu(cores=sum(c.cpu_seconds for c in copies) / wall, cpu_seconds=[c.cpu_seconds for c in copies],
                     wall_seconds=[c.wall_seconds for c in copies], cpus=min(c.cpus for c in copies))
