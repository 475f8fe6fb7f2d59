"""tengig.bench: pool (fio), network (iperf3) and SMB (smbclient) measurements with the verdict, as jobs."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ...verdict.targets import DEFAULT_TARGET
from .base import ApiInput, ApiOutput

HOST_PATTERN = r"^[a-z][a-z0-9]{0,9}$"


class TenGigBenchRequest(ApiInput):
    system: Literal["local", "truenas", "lab"] | None = Field(
        None, description="Where to measure: 'local' (this machine is the NAS: its own pool), 'lab' (the embedded "
        "lab), 'truenas' (a TrueNAS over its API); null: this machine if it has a ZFS pool, never the lab "
        "(tengig.bench.systems says what can be measured here and why).")
    target: str = Field(DEFAULT_TARGET, description="Target disk to beat (a name from tengig.targets.query).")
    clients: list[str] = Field(default_factory=list, max_length=8,
                               description="Client hosts that run iperf3 and smbclient (default: the first client).")
    preset: Literal["quick", "full"] = Field("quick", description="quick (about a minute on the lab) or full.")
    repeats: int | None = Field(None, ge=1, le=20, description="Runs per test (default: the preset's).")
    streams: int = Field(4, ge=1, le=64, description="iperf3 parallel streams for the N-stream test.")
    net_seconds: int | None = Field(None, ge=1, le=600, description="iperf3 measured seconds per test.")
    pool: str | None = Field(None, max_length=64, description="Pool to measure (default: the system's pool); "
                             "one benchmark per pool runs at a time, a second one gets EBUSY.")


class TenGigBenchRunRequest(TenGigBenchRequest):
    kind: Literal["pool", "net", "smb", "all"] = Field("all", description="What to measure.")


class TenGigBenchOutcome(ApiOutput):
    run_id: int = Field(description="Id of the stored run (tengig.results.get).")
    summary: str = Field(description="The verdict in one sentence.")
    verdict: dict[str, Any] | None = Field(description="Verdict of the first client: target, directions "
                                           "(ceilings chain, winner, margin, bottleneck), advice.")
    report: dict[str, Any] = Field(description="Every measurement: pool phases, per-client network and SMB, "
                                   "per-client verdicts; bytes/s and bits/s as named.")


class TenGigBenchRunArgs(ApiInput):
    request: TenGigBenchRunRequest = Field(default_factory=TenGigBenchRunRequest,
                                           description="What to measure and against which target.")


class TenGigBenchRunResult(ApiOutput):
    result: TenGigBenchOutcome = Field(description="The stored run's id, verdict and measurements.")


class TenGigBenchPoolArgs(ApiInput):
    request: TenGigBenchRequest = Field(default_factory=TenGigBenchRequest, description="As tengig.bench.run.")


class TenGigBenchPoolResult(TenGigBenchRunResult):
    pass


class TenGigBenchNetworkArgs(TenGigBenchPoolArgs):
    pass


class TenGigBenchNetworkResult(TenGigBenchRunResult):
    pass


class TenGigBenchSmbArgs(TenGigBenchPoolArgs):
    pass


class TenGigBenchSmbResult(TenGigBenchRunResult):
    pass


class TenGigBenchSystemState(ApiOutput):
    name: Literal["local", "truenas", "lab"] = Field(description="The system, as tengig.bench.run's request.system.")
    usable: bool = Field(description="Whether it can be measured now.")
    reason: str = Field(description="What was found: this machine's kind and pools, the lab's hosts, or why not.")


class TenGigBenchSystemsArgs(ApiInput):
    pass


class TenGigBenchSystemsResult(ApiOutput):
    result: list[TenGigBenchSystemState] = Field(description="local, truenas and lab, each with whether it can be "
                                                             "measured now and why.")
