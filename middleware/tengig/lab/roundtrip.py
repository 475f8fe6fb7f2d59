"""A checked SMB round trip on the lab: a random file on the NAS is read by a client host with
smbclient and written back; both copies must hash the same. A proof that the share moves real
bytes, not a benchmark (timings include smbclient's connect)."""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass

from ..errors import LabError
from ..names import filename, hostname
from ..units import MiB
from .lab import Lab

CHUNK = 1 * MiB


@dataclass(frozen=True)
class RoundTrip:
    host: str
    size_bytes: int
    sha256: str
    read_seconds: float
    write_seconds: float


def _sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def write_random_file(path, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "wb") as fh:
        left = size
        while left:
            chunk = os.urandom(min(CHUNK, left))
            digest.update(chunk)
            fh.write(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def smb_roundtrip(lab: Lab, host: str, size: int, name: str = "tengig-roundtrip.bin") -> RoundTrip:
    hostname(host, field="host")
    filename(name, field="name")
    if host == lab.require_up().spec.nas:
        raise LabError("the round trip runs from a client host, not from the NAS itself")
    share = lab.share_path
    original = share / name
    back_name = "back-" + name
    client_dir = lab.paths.data / "clients" / host
    client_dir.mkdir(parents=True, exist_ok=True)
    local = client_dir / name
    try:
        sha = write_random_file(original, size)
        t0 = time.monotonic()
        lab.smbclient(host, f"get {name} {local}")
        t1 = time.monotonic()
        if local.stat().st_size != size or _sha256(local) != sha:
            raise LabError(f"SMB read from {host}: the bytes that arrived differ from the file on the NAS")
        lab.smbclient(host, f"put {local} {back_name}")
        t2 = time.monotonic()
        if _sha256(share / back_name) != sha:
            raise LabError(f"SMB write from {host}: the file written back differs from the original")
        return RoundTrip(host=host, size_bytes=size, sha256=sha, read_seconds=t1 - t0, write_seconds=t2 - t1)
    finally:
        for path in (original, share / back_name, local):
            path.unlink(missing_ok=True)
