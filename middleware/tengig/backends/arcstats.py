"""The ZFS ARC counters a system reports, whichever way it reports them (OpenZFS's kstat file,
zfs-fuse's kstat mount, FreeBSD's sysctl): the sample every backend produces and the benchmark reads."""
from __future__ import annotations

from pydantic import BaseModel, Field

NEEDED = ("hits", "misses", "c_max")


class ArcSample(BaseModel):
    hits: int
    misses: int
    c_max: int = Field(description="ARC maximum size, bytes.")
    source: str
