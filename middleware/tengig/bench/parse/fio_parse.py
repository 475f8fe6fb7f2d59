"""Parse `fio --output-format=json` (pure).

fio may print notes before its JSON, so parsing starts at the first `{`; in client/server mode it prints
one JSON document per client (and one for all of them) in a row, decoded one after another. A job
whose `error` is set, or that moved no bytes, is refused: a failed tool never becomes a number.
Throughput is the job's own bytes over its own runtime (docs/physics.md §6: count bytes once)."""
from __future__ import annotations

import errno as errno_mod
import json
import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ToolOutputError

Direction = Literal["read", "write"]


class FioIo(BaseModel):
    """One direction of one fio job, as fio counted it."""

    model_config = ConfigDict(frozen=True)

    bytes: int = Field(description="Bytes moved (fio io_bytes).")
    runtime_ms: int = Field(description="Time fio spent on this direction, ms.")
    iops: float
    bytes_per_s: float = Field(description="bytes / runtime, computed here (not fio's rounded bw).")
    mean_latency_us: float | None = Field(None, description="Mean completion latency, µs.")
    p99_latency_us: float | None = Field(None, description="99th percentile completion latency, µs.")


class FioJob(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    hostname: str | None = Field(None, description="fio client/server: the client that ran the job.")
    error: int = Field(description="errno fio reported for the job (0: none).")
    read: FioIo | None
    write: FioIo | None
    version: str | None = None


def _io(section: dict) -> FioIo | None:
    moved = int(section.get("io_bytes") or 0)
    runtime = int(section.get("runtime") or 0)
    if moved <= 0 or runtime <= 0:
        return None
    clat = section.get("clat_ns") or {}
    p99 = (clat.get("percentile") or {}).get("99.000000")
    return FioIo(
        bytes=moved, runtime_ms=runtime, iops=float(section.get("iops") or 0),
        bytes_per_s=moved / (runtime / 1000),
        mean_latency_us=clat["mean"] / 1000 if clat.get("mean") else None,
        p99_latency_us=p99 / 1000 if p99 else None,
    )


def decode_documents(text: str) -> list[dict]:
    """Every JSON document fio printed, in order (notes between them are skipped)."""
    decoder, docs, pos = json.JSONDecoder(), [], 0
    while (start := text.find("{", pos)) >= 0:
        try:
            doc, pos = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            if docs:
                break  # trailing noise after complete documents
            raise ToolOutputError(f"fio JSON is broken ({exc}): the run did not complete") from exc
        docs.append(doc)
    if not docs:
        raise ToolOutputError(f"fio printed no JSON: {text.strip()[:300] or '(nothing)'}")
    return docs


def parse_fio_json(text: str) -> list[FioJob]:
    """All jobs of a local run, or of every client in client/server mode (the 'All clients' sum is left out)."""
    jobs = []
    for doc in decode_documents(text):
        version = doc.get("fio version")
        for raw in doc.get("jobs", []) + doc.get("client_stats", []):
            if raw.get("jobname") == "All clients":
                continue
            jobs.append(FioJob(
                name=str(raw.get("jobname", "?")), hostname=raw.get("hostname"), error=int(raw.get("error") or 0),
                read=_io(raw.get("read") or {}), write=_io(raw.get("write") or {}), version=version,
            ))
    if not jobs:
        raise ToolOutputError("fio JSON lists no jobs: nothing ran")
    return jobs


def require_io(job: FioJob, direction: Direction) -> FioIo:
    """The job's result in `direction`, or a clear error if the job failed or moved nothing."""
    where = f" on {job.hostname}" if job.hostname else ""
    if job.error:
        name = errno_mod.errorcode.get(job.error, str(job.error))
        raise ToolOutputError(f"fio job {job.name}{where} failed: {name} ({os.strerror(job.error)})", errno=job.error)
    io = job.read if direction == "read" else job.write
    if io is None:
        raise ToolOutputError(f"fio job {job.name}{where} moved no bytes in {direction}: nothing was measured")
    return io
