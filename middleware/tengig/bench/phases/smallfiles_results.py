"""What the small-file phase reports (models and their arithmetic; the measuring is
bench/join/joined_smallfiles.py): per size, per operation, files/s and MB/s, each file's time as
percentiles, and what the NAS saw of it (files and bytes in the share, smbd's CPU)."""
from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from ..parse.smallfiles_parse import OpTiming, SmallOp


class Percentiles(BaseModel):
    """Times of single files, ms: nearest-rank percentiles over ``count`` files."""

    model_config = ConfigDict(allow_inf_nan=False)

    count: int = Field(ge=1)
    p50_ms: float = Field(ge=0)
    p95_ms: float = Field(ge=0)
    p99_ms: float = Field(ge=0)


def percentiles(seconds: Sequence[float]) -> Percentiles | None:
    """Nearest-rank p50/p95/p99 of ``seconds`` in ms (None: no values)."""
    if not seconds:
        return None
    ordered = sorted(seconds)

    def rank(p: float) -> float:
        return 1000 * ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]

    return Percentiles(count=len(ordered), p50_ms=rank(50), p95_ms=rank(95), p99_ms=rank(99))


class SmallOpResult(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    op: SmallOp
    files: int = Field(ge=1)
    bytes: int = Field(ge=0, description="The files' bytes (stat and delete move none: their files' size).")
    seconds: float = Field(gt=0, description="The batch's time on the desktop's clock, s, within what the NAS's own "
                           "clock and port allow it (else the NAS's bound: nas_note says so).")
    files_per_s: float = Field(gt=0)
    bytes_per_s: float = Field(ge=0, description="bytes / seconds (write and read), bytes/s.")
    per_file: Percentiles | None = Field(None, description="Each file's whole operation (create or open, data, "
                                         "close), ms; None: the tool times only the batch (smbclient's ls, del).")
    open: Percentiles | None = Field(None, description="The open or create alone, ms (tengig's own timer).")
    close: Percentiles | None = Field(None, description="The close alone, ms (tengig's own timer).")
    smbd_cpu_percent: float | None = Field(None, description="smbd's CPU over the batch, % of one core (the share "
                                           "only).")
    nas_note: str | None = Field(None, description="Where the desktop's times were impossible against the NAS's own "
                                 "clock and port (the share only): the NAS's bound shown instead, or times of single "
                                 "files left out, and why. None: the desktop's times stand.")


def op_result(timing: OpTiming, size: int, smbd_cpu_percent: float | None = None,
              nas_note: str | None = None) -> SmallOpResult:
    moved = timing.files * size
    return SmallOpResult(op=timing.op, files=timing.files, bytes=moved, seconds=timing.seconds,
                         files_per_s=timing.files / timing.seconds,
                         bytes_per_s=moved / timing.seconds if timing.op in ("write", "read") else 0.0,
                         per_file=percentiles(timing.per_file), open=percentiles(timing.opens),
                         close=percentiles(timing.closes), smbd_cpu_percent=smbd_cpu_percent, nas_note=nas_note)


class SmallSizeResult(BaseModel):
    size: int = Field(description="Bytes per file.")
    count: int = Field(description="Files of this size.")
    engine: str = Field(description="What copied them: smbclient, or tengig's own timer on the mounted share or "
                        "(the Windows kit) on the share's UNC path.")
    ops: list[SmallOpResult] = Field(description="write, stat, read, delete through the share.")
    nas_files: int = Field(description="Files of the run the NAS found in the share after the write.")
    nas_bytes: int = Field(description="Their bytes, as the NAS's own file system says.")
    nas_files_left: int = Field(description="Files the NAS found after the delete (0: all removed).")
    write_back: str | None = Field(None, description="How the NAS waited for its pool to write the files out "
                                   "before they were stat'ed and read (zpool sync, or zpool iostat until no writes "
                                   "are left), or why it did not: the reads then read files at rest, not beside "
                                   "the write's write-back.")
    own_disk: list[SmallOpResult] | None = Field(None, description="The same files on the desktop's own disk "
                                                 "(--disk), tengig's own timer.")

    def op(self, name: str, *, own_disk: bool = False) -> SmallOpResult | None:
        return next((o for o in ((self.own_disk or []) if own_disk else self.ops) if o.op == name), None)


class SmallFilesResult(BaseModel):
    client: str
    server: str
    sizes: list[SmallSizeResult]
    round_trip_ms: float | None = Field(None, description="The link's round trip, ms: the NAS's own ping to the "
                                        "client, average of its replies (None: no reply, or no ping on the NAS).")
    own_disk_note: str | None = Field(None, description="Why the desktop's own disk has no small-file figures, "
                                      "when it was asked.")
    note: str | None = Field(None, description="Why the desktop ran no small files (it refused them: a desktop "
                             "or Windows kit of an earlier tengig); the run goes on without them.")
    bytes_written: int = Field(0, description="Bytes the files wrote to the NAS's pool.")
