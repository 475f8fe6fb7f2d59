"""What a stored run is made of: its inputs, every raw tool output, the environment it ran in,
its measurements (only when it succeeded) and its verdict.

Units follow the rest of tengig: link speeds in bits/s, sizes in bytes, times in seconds, epochs
in seconds since 1970 (UTC)."""
from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..runner import Completed

RunKind = Literal["pool", "net", "smb", "smallfiles", "all"]
RunStatus = Literal["running", "success", "failed", "aborted"]
RUN_KINDS: tuple[str, ...] = ("pool", "net", "smb", "smallfiles", "all")
RUN_STATUSES: tuple[str, ...] = ("running", "success", "failed", "aborted")
FINAL_STATUSES: tuple[str, ...] = ("success", "failed", "aborted")


class Nic(BaseModel):
    """One network interface as the system reported it (None: it could not be read)."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(description="Interface name, e.g. 'eth0' or 'desk-nas'.")
    speed_bps: int | None = Field(
        None,
        description="Speed the kernel reports in sysfs, bits/s; None when unknown (link down, some virtual "
        "links). In the lab a veth says 10 Gb/s whatever its shaping.",
    )
    mtu: int | None = Field(None, description="MTU, bytes.")
    driver: str | None = Field(
        None, description="Kernel driver (e.g. 'ixgbe') or virtual link kind (e.g. 'veth', 'bond')."
    )


class Environment(BaseModel):
    """Fingerprint of the system a run measured, so two runs can be told apart later.

    Every probe is best-effort: a value that could not be read is None, and ``probe_errors`` says
    why, so "unknown" is never confused with "zero" or "absent"."""

    model_config = ConfigDict(extra="ignore")

    tools: dict[str, str | None] = Field(
        default_factory=dict,
        description="Tool -> version as the tool printed it, e.g. {'fio': 'fio-3.33', 'iperf3': '3.12'}; "
        "None: not found.",
    )
    kernel: str | None = Field(None, description="`uname -r`.")
    os: str | None = Field(None, description="PRETTY_NAME from /etc/os-release.")
    zfs_version: str | None = Field(None, description="`zfs version` first line, or 'ZFS pool version N' (zfs-fuse).")
    arc_size_bytes: int | None = Field(None, description="ARC maximum size (arcstats c_max), bytes.")
    arc_source: str | None = Field(
        None, description="Where arc_size_bytes was read, e.g. '/proc/spl/kstat/zfs/arcstats'."
    )
    dataset_properties: dict[str, str] = Field(
        default_factory=dict, description="ZFS property -> exact value (zfs get -Hp) of the measured dataset."
    )
    nics: list[Nic] = Field(default_factory=list)
    hostname: str | None = None
    pool_layout: str | None = Field(None, description="The measured pool's vdevs as `zpool status` shows them, in "
                                    "one line: 'mirror-0 (sda, sdb), mirror-1 (sdc, sdd); logs: nvme0n1'.")
    truenas_version: str | None = Field(None, description="TrueNAS's version (/etc/version: '25.04.2.6' on SCALE, "
                                        "'TrueNAS-13.0-U6.1' on CORE); None on other systems.")
    probe_errors: dict[str, str] = Field(
        default_factory=dict, description="Probe name -> why it yielded nothing (e.g. 'iperf3': 'not installed')."
    )


class RawOutput(BaseModel):
    """One tool invocation exactly as it happened: kept for failed runs too, so a failure can be read.
    Its numbers are finite (a desktop's infinite seconds is refused here, before the store)."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)

    tool: str = Field(description="Short tool name, e.g. 'fio', 'iperf3', 'smbclient'.")
    argv: list[str] = Field(description="The exact argv that ran (including any `ip netns exec` prefix).")
    exit_code: int | None = Field(description="Exit status; None when it was killed (timeout) before exiting.")
    stdout: str = ""
    stderr: str = ""
    started: float = Field(description="Epoch seconds when it started.")
    seconds: float = Field(ge=0, description="Wall time, s.")

    @classmethod
    def from_completed(cls, done: Completed, *, started: float | None = None, tool: str | None = None) -> "RawOutput":
        """From the runner's Completed; ``started`` defaults to now minus its wall time."""
        return cls(
            tool=tool or _tool_name(done.argv),
            argv=list(done.argv),
            exit_code=done.returncode,
            stdout=done.stdout,
            stderr=done.stderr,
            started=started if started is not None else time.time() - done.seconds,
            seconds=done.seconds,
        )


class RunRecord(BaseModel):
    """One benchmark run as stored. ``results`` is set only for a successful run."""

    model_config = ConfigDict(extra="ignore")

    id: int
    started: float = Field(description="Epoch seconds.")
    finished: float | None = Field(None, description="Epoch seconds; None while running.")
    kind: RunKind
    status: RunStatus
    inputs: dict[str, Any] = Field(default_factory=dict, description="The arguments the run was started with.")
    results: dict[str, Any] | None = Field(
        None, description="Measurements (free-form JSON); None unless status is success."
    )
    verdict: dict[str, Any] | None = Field(None, description="The verdict (tengig.verdict.models.Verdict as JSON).")
    error: str | None = Field(None, description="Why the run failed or was aborted.")
    environment: Environment | None = None
    raw: list[RawOutput] = Field(default_factory=list, description="Every tool invocation, in order.")


def _tool_name(argv: tuple[str, ...] | list[str]) -> str:
    """The program that did the work, skipping netns/nsenter wrappers: 'fio' for
    ['ip','netns','exec','nas','fio',...] ."""
    args = list(argv)
    if args[:3] == ["ip", "netns", "exec"] and len(args) > 4:
        args = args[4:]
    elif args and args[0] == "nsenter" and "--" in args:
        args = args[args.index("--") + 1 :]
    return args[0].rsplit("/", 1)[-1] if args else "?"
