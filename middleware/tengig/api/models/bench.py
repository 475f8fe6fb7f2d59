"""tengig.bench: pool (fio), network (iperf3) and SMB (smbclient) measurements with the verdict, as jobs."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from ...join_protocol.messages import JoinInfo, Submission
from ...bench.phases.smallfiles_plan import SmallFilesSize
from ...verdict.targets import DEFAULT_TARGET
from .base import ApiInput, ApiOutput

HOST_PATTERN = r"^[a-z][a-z0-9]{0,9}$"


def _api_face(name: str, source: type[BaseModel], doc: str) -> type[ApiInput]:
    """The API's input model for one of bench's own models: the same fields, defaults and limits (one
    source of truth), with the API's input rules (ApiInput: unknown keys and coercion refused)."""
    fields: dict[str, Any] = {n: (f.annotation, f) for n, f in source.model_fields.items()}
    return create_model(name, __base__=ApiInput, __module__=__name__, __doc__=doc, **fields)


TenGigBenchSmallFilesSize = _api_face("TenGigBenchSmallFilesSize", SmallFilesSize,
                                      "One size of the small-file test: bytes per file and files.")


class TenGigBenchRequest(ApiInput):
    system: Literal["local", "truenas", "lab"] | None = Field(
        None, description="Where to measure: 'local' (this machine is the NAS: its own pool), 'lab' (the embedded "
        "lab), 'truenas' (a TrueNAS over its API); null: this machine if it has a ZFS pool, never the lab "
        "(tengig.bench.systems says what can be measured here and why).")
    target: str = Field(DEFAULT_TARGET, description="Target disk to beat (a name from tengig.targets.query).")
    clients: list[str] = Field(default_factory=list, max_length=8,
                               description="Client hosts that run iperf3 and smbclient (default: the first client).")
    preset: Literal["quick", "full"] = Field("quick", description="quick (about a minute on the lab) or full (under 5 minutes on the lab with one desktop at 1 Gb/s).")
    repeats: int | None = Field(None, ge=1, le=20, description="Runs per test (default: the preset's).")
    streams: int = Field(4, ge=1, le=64, description="iperf3 parallel streams for the N-stream test.")
    net_seconds: int | None = Field(None, ge=1, le=600, description="iperf3 measured seconds per test.")
    working_set: int | None = Field(None, ge=64 * 2**20, le=2**40, description="Bytes per pool test file (default: "
                                    "the preset's, 512 MiB quick, 2 GiB full; the lab's emulated pool 128 MiB).")
    smb_file: int | None = Field(None, ge=64 * 2**20, le=2**40, description="Bytes per SMB copy (default: the "
                                 "preset's: quick sizes each copy to about 1.5 s of the desktop's network, at most 256 "
                                 "MiB; full 1 GiB). Where the NAS cannot keep its ARC out of the reads, at least twice "
                                 "the ARC.")
    pool: str | None = Field(None, max_length=64, description="Pool to measure (default: the system's pool); "
                             "one benchmark per pool runs at a time, a second one gets EBUSY.")
    join: int = Field(0, ge=0, le=16, description="System 'local': desktops to wait for, each joining the run over "
                      "the network with `tengig client join` (the token is in the job's progress.extra.session).")
    join_timeout: int = Field(300, ge=10, le=3600, description="Seconds to wait for them to join.")
    share: str | None = Field(None, max_length=32, description="System 'local': the SMB share of this NAS's running "
                              "Samba that joined clients copy to (a scratch directory in it is removed afterwards).")
    scaling: Literal["auto", "on", "off", "only"] = Field(
        "auto", description="The pool's thread sweep: SEQ1M read and write at 1, 2, 4 ... threads up to the NAS's "
        "cores, stopping when a step adds less than 5%, with each pool member's wait and busy share beside it "
        "(the member that stands out is named); the verdict uses the best thread count. on, off, only (the sweep "
        "alone, without the preset's tests), or auto (on in full, off in quick).")
    member_reads: bool = Field(False, description="With the sweep: also read each pool member alone, raw and "
                               "read-only (it touches every disk; member_read_bytes from each).")
    member_read_bytes: int = Field(256 * 2**20, ge=16 * 2**20, le=2**30,
                                   description="Bytes read from each pool member with member_reads (at most 1 GiB).")
    small_files: list[TenGigBenchSmallFilesSize] | None = Field(None, min_length=1, max_length=4, description="The small-file "
                                                     "test's sizes, each {size: bytes per file, count: files}, at "
                                                     "most 256 MiB per size (default: the preset's: quick 200 x 4 "
                                                     "KiB, 50 x 64 KiB, 8 x 1 MiB; full 2,000, 500, 64).")


class TenGigBenchRunRequest(TenGigBenchRequest):
    kind: Literal["pool", "net", "smb", "smallfiles", "all"] = Field("all", description="What to measure (all "
                                                                     "includes smallfiles in the full preset).")


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
    joins: bool = Field(False, description="Desktops can join a run there through this API (tengig client join; "
                        "tengig's own host, system local).")


class TenGigBenchSystemsArgs(ApiInput):
    pass


class TenGigBenchSystemsResult(ApiOutput):
    result: list[TenGigBenchSystemState] = Field(description="local, truenas and lab, each with whether it can be "
                                                             "measured now and why.")


class TenGigBenchKitRequest(ApiInput):
    os: Literal["windows"] = Field("windows", description="The desktop's system (Linux and macOS join with "
                                   "`tengig client join`).")
    nas: str = Field(description="The NAS's API as the desktop reaches it: ws://HOST:PORT (or wss://: the kit "
                     "then trusts the certificate the NAS presents there, read when the kit is made).")
    token: str = Field(description="The run's join token (tgb-...), from the waiting run's progress.")
    share: str = Field(description="The SMB share the run copies to.")


class TenGigBenchKitArgs(ApiInput):
    request: TenGigBenchKitRequest = Field(description="For which NAS, run and share.")


class TenGigBenchKit(ApiOutput):
    filename: str = Field(description="What to save it as.")
    text: str = Field(description="The script, rendered for this NAS, run and share.")
    how: str = Field(description="How to run it on the desktop.")


class TenGigBenchKitResult(ApiOutput):
    result: TenGigBenchKit = Field(description="The script and how to run it.")


TenGigBenchSessionJoinInfo = _api_face("TenGigBenchSessionJoinInfo", JoinInfo,
                                       "What a joining desktop says about itself (its own facts).")


class TenGigBenchSessionJoinArgs(ApiInput):
    token: str = Field(min_length=1, max_length=200, description="The run's join token, as the run shows it while it waits for clients.")
    info: TenGigBenchSessionJoinInfo = Field(description="What the joining desktop says about itself.")


class TenGigBenchSessionJoined(ApiOutput):
    session: int = Field(description="The bench session's id.")
    name: str = Field(description="The name this client has in the run.")
    nas_address: str = Field(description="The NAS's address this client reached (the link under test); empty when it came "
                             "through a proxy (TrueNAS's nginx): the run then finds the link by route.")


class TenGigBenchSessionJoinResult(ApiOutput):
    result: TenGigBenchSessionJoined = Field(description="Joined.")


class TenGigBenchSessionNextArgs(ApiInput):
    wait: float = Field(10, ge=0, le=30, description="Seconds to wait for an instruction.")


class TenGigBenchSessionNextResult(ApiOutput):
    result: dict[str, Any] | None = Field(description="{id, kind: iperf3|smb|done|abort, params}, or null: nothing "
                                          "yet, ask again.")


TenGigBenchSessionSubmission = _api_face("TenGigBenchSessionSubmission", Submission,
                                         "A tool's raw output for one instruction, or one part of it.")


class TenGigBenchSessionSubmitArgs(ApiInput):
    submission: TenGigBenchSessionSubmission = Field(description="A tool's raw output.")


class TenGigBenchSessionSubmitResult(ApiOutput):
    result: Literal[True] = Field(description="Accepted (the NAS checks it against its own counters).")
