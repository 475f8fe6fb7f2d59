"""The messages of the join protocol: what a desktop calls, says, is told and answers.

A desktop connects to the NAS's API (tengig's own host or middlewared), never logs in, and calls three methods:
JOIN_METHOD with the run's token and a JoinInfo, then NEXT_METHOD until it is told an Instruction, and
SUBMIT_METHOD with a Submission (in parts when long: parts.py). The NAS parses what the tool printed itself."""
from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from ..names import DESKTOP_IFNAME_RE

JOIN_METHOD = "tengig.bench.session.join"
NEXT_METHOD = "tengig.bench.session.next"
SUBMIT_METHOD = "tengig.bench.session.submit"

# What one desktop's answer to one instruction may hold on the NAS: its stdout, stderr and argv together, in
# UTF-8 (the NAS's session refuses more; the small-file limits size their counts by it).
MAX_OUTPUT_BYTES = 1024 * 1024
MAX_SECONDS = 7 * 24 * 3600.0  # a command's wall time: longer than any instruction is waited for
MAX_CPUS = 4096.0  # CPUs a desktop may say its tools have (Linux's most)

# iperf3, smb (a copy), disk (the desktop's own disk), smallfiles and peer (towards another desktop) ask for a
# tool's run; done and abort end the run (their params: the reason).
InstructionKind = Literal["iperf3", "smb", "disk", "smallfiles", "peer", "done", "abort"]
INSTRUCTION_KINDS: tuple[str, ...] = get_args(InstructionKind)


class JoinInfo(BaseModel):
    """What a desktop says about itself when it joins (its own facts, measured on it)."""

    model_config = ConfigDict(extra="forbid")

    hostname: str = Field(min_length=1, max_length=253, description="The client's host name.")
    os: Literal["linux", "macos", "windows", "freebsd"] = Field(description="The client's operating system.")
    tengig: str = Field("", max_length=40, description="tengig (or kit) version on the client.")
    interface: str | None = Field(None, max_length=64, pattern=DESKTOP_IFNAME_RE.pattern,
                                  description="The client's interface towards the NAS: a Linux or macOS interface "
                                  "name or a Windows adapter alias (ASCII letters, digits, blanks inside and "
                                  "()#*+.:@_-).")
    mtu: int | None = Field(None, ge=68, le=65536, description="That interface's MTU, bytes.")
    speed_bps: int | None = Field(None, ge=0, le=10**13, description="That interface's negotiated speed, bits/s.")
    smb: bool = Field(True, description="The client can run the SMB copy (it has an SMB client and credentials).")
    disk: bool = Field(False, description="The client measures its own disk when asked (--disk): the target to beat.")


class Instruction(BaseModel):
    id: int
    kind: InstructionKind
    params: dict[str, Any] = Field(default_factory=dict)


class Submission(BaseModel):
    """What a client ran and what its tool printed (the NAS parses it)."""

    model_config = ConfigDict(extra="forbid")

    instruction: int = Field(ge=1, le=2**31, description="The instruction this answers.")
    exit_code: int = Field(ge=-2**31, lt=2**32, description="The tool's exit code (Windows: up to 0xFFFFFFFF).")
    stdout: str = Field("", max_length=MAX_OUTPUT_BYTES, description="What the tool printed (parsed on the NAS); "
                        f"with stderr and argv at most {MAX_OUTPUT_BYTES} bytes in UTF-8, all parts together.")
    stderr: str = Field("", max_length=MAX_OUTPUT_BYTES, description="What the tool printed on stderr.")
    argv: list[str] = Field(default_factory=list, max_length=200, description="The command the client ran.")
    seconds: float = Field(0.0, ge=0, le=MAX_SECONDS, allow_inf_nan=False,
                           description="Wall time of the command on the client, s (a finite number; the NAS "
                           "times what it uses on its own clock).")
    cpu_seconds: float | None = Field(None, ge=0, le=MAX_SECONDS * MAX_CPUS, allow_inf_nan=False,
                                      description="CPU time (user + system) the tool used on the client, s: its "
                                      "process and what it waited for (rusage), the copying thread's own for a "
                                      "copy through a mounted share, the process's in the Windows kit; sent when "
                                      "the instruction asks (its params' cpu); None: not measured.")
    cpus: float | None = Field(None, gt=0, le=MAX_CPUS, allow_inf_nan=False,
                               description="CPUs' worth the client's tools may use: its CPUs, or its cgroup's CPU "
                               "limit when lower (bounds cpu_seconds; None: unknown).")
    more: bool = Field(False, description="More parts follow (a message of a client that has not logged in holds "
                       "at most 8 KiB): their stdout and stderr are appended; exit_code, argv, seconds, "
                       "cpu_seconds and cpus are taken from the last part.")
