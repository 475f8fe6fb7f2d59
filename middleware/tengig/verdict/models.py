"""The verdict's inputs and outputs (typed, shared by bench/, results/ and the API).

Storage and SMB speeds are bytes per second; link speeds are bits per second. Every number says
whether it was measured by a tool that really moved bytes, or estimated (computed from physics)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Direction = Literal["read", "write"]
Component = Literal["pool", "link", "network", "smb"]
Provenance = Literal["measured", "estimated"]


class Target(BaseModel):
    """A reference disk to beat (docs/physics.md §5), with where its numbers come from."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Catalogue key, e.g. 'hdd-15k-best'.", pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    title: str = Field(description="Human name, e.g. '15k rpm enterprise HDD (best of a 2016 review)'.")
    read_bytes_per_s: float = Field(gt=0, description="Sequential read, bytes/s (MB/s x 10^6).")
    write_bytes_per_s: float | None = Field(None, gt=0, description="Sequential write, bytes/s; None if the source gives none.")
    source: str = Field(description="Where the figure comes from (review, datasheet, vendor spec).")
    builtin: bool = Field(True, description="Shipped with tengig (False: added by the user).")


class Ceiling(BaseModel):
    """One component's best throughput in one direction, in bytes/s, measured or estimated."""

    model_config = ConfigDict(extra="forbid")

    component: Component
    direction: Direction
    bytes_per_s: float = Field(ge=0)
    provenance: Provenance
    label: str = Field(description="What it is, e.g. 'link desk-nas 1 Gb/s goodput' or 'fio SEQ1M Q8T1 read'.")
    runs: list[float] = Field(default_factory=list, description="Each run's figure, bytes/s, when the measurement "
                              "was repeated (bytes_per_s is their median); empty: one figure.")

    @property
    def spread(self) -> tuple[float, float]:
        """(lowest, highest) of its runs; both bytes_per_s with one figure."""
        return (min(self.runs), max(self.runs)) if self.runs else (self.bytes_per_s, self.bytes_per_s)


class PathRetransmits(BaseModel):
    """One iperf3 test's retransmits as its sending side's TCP counted them (a read: the NAS's own iperf3
    server; a write: the desktop's client), with the segments it sent."""

    model_config = ConfigDict(extra="forbid")

    direction: Direction
    streams: int = Field(ge=1)
    retransmits: int = Field(ge=0)
    segments: int = Field(gt=0, description="Segments the sender sent: its bytes / the MSS (estimated).")
    sender: str = Field(description="Who counted, e.g. \"nas's own iperf3 server\".")

    @property
    def share(self) -> float:
        return self.retransmits / self.segments


class Facts(BaseModel):
    """What the advice rules look at besides the ceilings."""

    model_config = ConfigDict(extra="forbid")

    link_negotiated_bps: int | None = Field(None, description="Speed the client's link negotiated, bits/s.")
    link_capable_bps: int | None = Field(None, description="Fastest speed both NICs support, bits/s.")
    mtus: dict[str, int] = Field(default_factory=dict, description="Interface (host:ifname) -> MTU along the path.")
    net_single_stream_bps: float | None = Field(None, description="iperf3 goodput with 1 stream, bits/s.")
    net_multi_stream_bps: float | None = Field(None, description="iperf3 goodput with N streams, bits/s.")
    net_retransmits: list[PathRetransmits] = Field(default_factory=list, description="Each iperf3 test's "
                                                   "retransmits, counted by its sender (empty: unknown).")
    smb_signing: bool | None = None
    smb_encryption: bool | None = None
    smbd_cpu_percent: float | None = Field(None, description="smbd CPU during the SMB run, % of one core.")
    smbd_cgroup: str | None = Field(None, description="smbd's CPU cgroup on the NAS (Linux), e.g. "
                                    "/system.slice/smbd.service.")
    smbd_cpu_limit_cores: float | None = Field(None, description="That cgroup's CPU limit, CPUs' worth; None: none "
                                               "or unknown.")
    smbd_throttled_percent: float | None = Field(None, description="Scheduling periods in which the kernel throttled "
                                                 "smbd's cgroup during the copies, %.")
    duplex: str | None = Field(None, description="The NAS's port's negotiated duplex (ethtool): full, half; None: "
                               "unknown.")
    link_downs: int | None = Field(None, description="Times the NAS's port lost its link during the run (the "
                                   "kernel's carrier changes, before and after); None: unknown.")
    client_name: str | None = Field(None, description="The desktop that copied (named in what is said of its CPU).")
    client_cpu_cores: float | None = Field(None, ge=0, allow_inf_nan=False, description="CPU the desktop's SMB "
                                           "client used during its copies, cores' worth (its CPU time over the "
                                           "copy's wall time; the direction where it used most); None: unknown.")
    client_cpus: float | None = Field(None, gt=0, allow_inf_nan=False, description="CPUs' worth the desktop's "
                                      "tools may use (its CPUs, or its cgroup's CPU limit when lower); None: unknown.")
    lagg_protocol: str | None = Field(None, description="LAGG protocol on the path, if any (LACP, LOADBALANCE, ...).")
    nas_ports_bps: list[int] = Field(default_factory=list, description="The aggregate verdict only: line rate of each "
                                     "NAS port the clients reached, bits/s (its link is their goodput summed); "
                                     "empty for one client's verdict.")
    lagg_members: int | None = None
    smb_multichannel: bool | None = Field(None, description="Whether the NAS's Samba offers SMB multichannel.")
    smb_channels: int | None = Field(None, description="The most channels the client's SMB session held "
                                     "(smbstatus); None: unknown.")
    nas_smb_nics: int | None = Field(None, description="The NAS's interfaces that could carry an SMB channel (up, "
                                     "with an IPv4 address; a LAGG counts once); None: unknown.")
    nas_truenas: bool | None = Field(None, description="The NAS is a TrueNAS (its SMB settings go through its "
                                     "API, not smb.conf).")
    pool_member_wait_ms: dict[str, float] = Field(default_factory=dict, description="Pool member -> its average "
                                                  "wait per I/O during the thread sweep, ms (empty: unknown).")
    pool_member_busy_percent: dict[str, float] = Field(default_factory=dict, description="Pool member -> the share "
                                                       "of the sweep it was busy, % (empty: unknown).")
    pool_one_thread_bps: dict[Direction, float] = Field(default_factory=dict, description="Thread sweep: the pool "
                                                        "with one thread, per direction, bytes/s (empty: no sweep).")
    pool_best_thread_bps: dict[Direction, float] = Field(default_factory=dict, description="Thread sweep: the "
                                                         "pool at its best thread count, per direction, bytes/s.")
    pool_best_threads: dict[Direction, int] = Field(default_factory=dict, description="Thread sweep: that best "
                                                    "thread count, per direction.")
    pool_dataset: str | None = Field(None, description="The scratch dataset the pool was measured on.")
    pool_dataset_properties: dict[str, str] = Field(default_factory=dict, description="Its properties that set "
                                                    "how fast it takes data (compression, dedup, recordsize in "
                                                    "bytes, sync where the pool has it), as zfs prints them.")
    smb_dataset: str | None = Field(None, description="The dataset the SMB copies went to (the share's scratch "
                                    "dataset, which inherits the share's sync and dedup); None: not known.")
    smb_dataset_properties: dict[str, str] = Field(default_factory=dict, description="Its properties, as "
                                                   "pool_dataset_properties (empty: not read).")
    smb_write_back: str | None = Field(None, description="How the NAS waited for its pool to finish writing the "
                                       "SMB copies before reading them back (or why it could not).")
    smb_read_arc_hit_ratio: float | None = Field(None, ge=0, le=1, description="ARC hits / (hits + misses) of "
                                                 "data reads (of all reads where the ARC does not count them apart) "
                                                 "during the SMB reads.")
    small_file_size: int | None = Field(None, description="The smallest size of the small-file test, bytes per file.")
    small_files_per_s: float | None = Field(None, description="Files of that size the share took per second (the "
                                            "write), files/s.")
    small_file_ms: float | None = Field(None, description="One such file's write (create, data, close), median, ms.")
    small_files_local_per_s: float | None = Field(None, description="The same files on the desktop's own disk "
                                                  "(--disk), files/s.")
    small_files_smbd_cpu_percent: float | None = Field(None, description="smbd's CPU during that write, % of one "
                                                       "core.")
    round_trip_ms: float | None = Field(None, description="The link's round trip (the NAS's ping to the desktop), ms.")


class DirectionVerdict(BaseModel):
    direction: Direction
    smb_bytes_per_s: float | None = Field(description="Measured SMB throughput, bytes/s (None: not measured).")
    target_bytes_per_s: float | None
    beats_target: bool | None = Field(description="None when either side is missing.")
    margin_percent: float | None = Field(description="(smb - target) / target x 100.")
    bottleneck: Component | None = Field(description="The component whose ceiling bounds the SMB result.")
    ceilings: list[Ceiling]
    close_calls: list[str] = Field(default_factory=list, description="Claims resting on runs too close to call: "
                                   "another ceiling, or the target, inside the run-to-run spread of the bottleneck "
                                   "or of SMB. Empty: every claim stands clear of the next figure in every run.")


class Advice(BaseModel):
    rule: str = Field(description="Stable rule id, e.g. 'link-negotiated-low'.")
    severity: Literal["info", "warning", "critical"]
    text: str


class Verdict(BaseModel):
    target: Target
    directions: list[DirectionVerdict]
    advice: list[Advice]
    summary: str = Field(description="One sentence: beats or loses, by how much, and what holds it back.")
    small_files: str | None = Field(None, description="Small files in one line: files/s at the smallest size, "
                                    "beside the desktop's own disk, and what holds them back (None: not measured).")
