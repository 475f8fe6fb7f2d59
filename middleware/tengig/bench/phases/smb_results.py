"""What an SMB measurement reports: per client (smbclient or the Windows kit's copies, each direction
over several runs) and for several clients at once (the NAS's start barrier). Models only; the
measuring is bench/join/joined.py and bench/join/joined_concurrent.py."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...verdict.models import Ceiling
from .cache_policy import CachePolicy
from .client_cpu_results import ClientCpu
from .smb_probes import SmbSession
from .smbd_cpu_limit import SmbdCpuLimit
from ..stats import Repeated


class SmbDirection(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    direction: str
    bytes_per_s: Repeated = Field(description="smbclient's bytes / smbclient's transfer time, per run, bytes/s.")
    bytes_per_run: int
    wire_bytes: list[int] = Field(description="Client interface bytes (rx for read, tx for write) per run.")
    smbd_cpu_percent: float | None = Field(description="smbd CPU over the runs, % of one core.")
    arc_hit_ratio: float | None = None
    write_back: str | None = Field(None, description="Reads: how the NAS made sure its pool had finished writing "
                                   "the copies first (zpool sync, or zpool iostat quiet), or why it could not.")
    smbd_cpu_limit: SmbdCpuLimit | None = Field(None, description="smbd's CPU cgroup during the copies: its limit "
                                                "and the share of periods the kernel throttled (Linux).")
    client_cpu: ClientCpu | None = Field(None, description="What the desktop's SMB client used of its CPU during "
                                         "the copies, as it measured it (None: not measured).")


class SmbMultichannel(BaseModel):
    """SMB multichannel for one client's copies, as the NAS saw it."""

    enabled: bool | None = Field(description="Whether the NAS's Samba offers multichannel (None: unknown).")
    read_from: str | None = Field(None, description="Where that was read (TrueNAS smb.config, or testparm).")
    channels: int | None = Field(None, description="The most channels the client's session held during its first "
                                 "copy (smbstatus --json); None: this Samba lists none (before 4.18).")
    nas_addresses: list[str] = Field(default_factory=list, description="The NAS's addresses those channels reached.")
    client_channels: int | None = Field(None, description="The channels the client said it used (Windows: "
                                        "Get-SmbMultichannelConnection after its first copy); None: not asked.")
    client_report: str | None = Field(None, description="What the client said of its own channels, in a line, or "
                                      "why it could not say.")

    @property
    def session_channels(self) -> int | None:
        """The channels the session used: the NAS's count, else the client's."""
        return self.channels if self.channels is not None else self.client_channels


class SmbBenchResult(BaseModel):
    client: str
    server: str
    engine: str = "smbclient"
    file_size: int
    session: SmbSession | None = Field(description="Dialect, signing, encryption (None: not observed).")
    multichannel: SmbMultichannel | None = Field(None, description="SMB multichannel: offered, and the channels "
                                                 "the session used.")
    read: SmbDirection
    write: SmbDirection
    cache_policy: CachePolicy | None = Field(None, description="How the ARC was kept out of the reads.")
    bytes_written: int | None = Field(None, description="Bytes the copies wrote to the NAS's pool.")
    unknowns: list[str] = Field(default_factory=list, description="What the NAS could not see of these copies, "
                                "each with why (smbd's CPU without smbd in sight, as in an app without the "
                                "host's PID namespace; the session without smbstatus).")
    dataset: str | None = Field(None, description="The dataset the copies went to: the run's scratch dataset in "
                                "the share, which inherits the share's sync and dedup (None: the share's directory "
                                "is no dataset tengig found).")
    dataset_properties: dict[str, str] = Field(default_factory=dict, description="That dataset's properties that "
                                               "set how fast it takes data (backends/scratch.SPEED_PROPERTIES).")

    def facts(self) -> dict[str, Any]:
        """What the verdict (verdict.models.Facts) reads of where the copies went and how they were read back:
        compared with the pool's when SMB passed more than the pool's figure (verdict/overrun.py)."""
        return {"smb_dataset": self.dataset, "smb_dataset_properties": self.dataset_properties,
                "smb_write_back": self.read.write_back, "smb_read_arc_hit_ratio": self.read.arc_hit_ratio}

    def ceilings(self) -> list[Ceiling]:
        return [Ceiling(component="smb", direction=d.direction, bytes_per_s=d.bytes_per_s.median,
                        provenance="measured", label=f"SMB {d.direction} {self.client} <- {self.server} smbclient"
                        if d.direction == "read" else f"SMB write {self.client} -> {self.server} smbclient",
                        runs=d.bytes_per_s.values)
                for d in (self.read, self.write)]


class ConcurrentDirection(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    direction: str
    per_client: dict[str, Repeated] = Field(description="Client -> bytes/s per run (fio bytes / fio runtime).")
    aggregate: Repeated = Field(description="All clients' bytes over the time they took together, per run, bytes/s "
                                "(fio: the slowest client's runtime; joined: from the first copy taken to the "
                                "last answer, on the NAS's clock).")
    wire_bytes: dict[str, list[int]] = Field(description="Client -> its port's bytes per run (clients sharing "
                                             "a port of the NAS: that port's bytes, the sum of theirs).")
    start_spread_seconds: list[float] | None = Field(
        None, description="Per run: from the first client's start to the last one's, s (joined clients, "
        "started together by the NAS).")
    arc_hit_ratio: float | None = Field(None, description="Reads: ARC hits / (hits + misses) of data reads "
                                        "(of all reads where the ARC does not count them apart) on the NAS during "
                                        "the reads (near 0: the reads came from the pool).")


class SmbConcurrentResult(BaseModel):
    engine: str = Field(description="How the copies ran (each desktop's own SMB client, started together).")
    clients: list[str]
    file_size: int
    read: ConcurrentDirection
    write: ConcurrentDirection
    cache_policy: CachePolicy | None = Field(None, description="How the ARC was kept out of the reads.")
    bytes_written: int | None = Field(None, description="Bytes the clients wrote to the NAS's pool.")
    unknowns: list[str] = Field(default_factory=list, description="What the NAS could not see of these copies, "
                                "each with why (the ARC's counters in a container that does not show the host's "
                                "kstat).")
