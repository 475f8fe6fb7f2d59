"""The small-file test's sizes and their bounds (pure data): what a run may ask a desktop for, each size from
512 bytes to 16 MiB, at most 5,000 files of one size and at most 256 MiB of them (the desktop keeps a copy of
each file, and its own timer holds one size in memory)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ...units import MiB, format_size

SMALL_SIZE_LIMITS = (512, 16 * MiB)
SMALL_COUNT_LIMITS = (1, 5000)
SMALL_TOTAL_BYTES = 256 * MiB
SMALL_FILES = {  # per preset: (bytes per file, files)
    "quick": ((4096, 200), (64 * 1024, 50), (MiB, 8)),
    "full": ((4096, 2000), (64 * 1024, 500), (MiB, 64)),
}


class SmallFilesSize(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int = Field(ge=SMALL_SIZE_LIMITS[0], le=SMALL_SIZE_LIMITS[1], description="Bytes per file.")
    count: int = Field(ge=SMALL_COUNT_LIMITS[0], le=SMALL_COUNT_LIMITS[1], description="Files of that size.")


def small_total_error(size: int, count: int) -> str | None:
    """Why ``count`` files of ``size`` bytes are too many for one size (None: they are not)."""
    if size * count <= SMALL_TOTAL_BYTES:
        return None
    return (f"{count} files of {format_size(size)} are {format_size(size * count)}; at most "
            f"{format_size(SMALL_TOTAL_BYTES)} per size")
