"""The small-file test's sizes per preset (pure data); the bounds of what a run may ask a desktop for (sizes,
counts, the total of one size) are the join protocol's (join_protocol/limits.py)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ...join_protocol.limits import SMALL_COUNT_LIMITS, SMALL_COUNT_MAX, SMALL_SIZE_LIMITS
from ...units import MiB

SMALL_FILES = {  # per preset: (bytes per file, files)
    "quick": ((4096, 200), (64 * 1024, 50), (MiB, 8)),
    "full": ((4096, 2000), (64 * 1024, 500), (MiB, 64)),
}


class SmallFilesSize(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int = Field(ge=SMALL_SIZE_LIMITS[0], le=SMALL_SIZE_LIMITS[1], description="Bytes per file.")
    count: int = Field(ge=SMALL_COUNT_LIMITS[0], description=f"Files of that size, at most {SMALL_COUNT_MAX:,} (a "
                       "desktop's own disk answers its four batches at once, one line per file each).")
