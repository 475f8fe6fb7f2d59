"""The small-file test's sizes and their bounds (pure data): what a run may ask a desktop for, each size from
512 bytes to 16 MiB, at most 256 MiB of one size (the desktop keeps a copy of each file, and its own timer
holds one size in memory), and at most SMALL_COUNT_MAX files of one size (2,457 today): a desktop's own disk
sends its four batches in one answer, one line per file each, and the NAS takes at most MAX_OUTPUT_BYTES of it."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ...units import MiB, format_size
from ..answer_limit import MAX_OUTPUT_BYTES
from ..parse.smallfiles_parse import SMALL_OPS, own_file_line, stamped

SMALL_SIZE_LIMITS = (512, 16 * MiB)
SMALL_TOTAL_BYTES = 256 * MiB
ANSWER_SPARE = 16 * 1024  # of an answer: its argv (the --disk path), its stderr, the batches' start and end lines
LONGEST_SECONDS = 99999.999999  # a line's time or a call's (the NAS waits far less for a batch)


def _longest_file_line() -> int:
    """Bytes of the longest line tengig's own timer sends for one file, its newline included."""
    line = own_file_line("f99999.bin", SMALL_SIZE_LIMITS[1], *[LONGEST_SECONDS] * 3)
    return len(stamped(LONGEST_SECONDS, line)) + 1


SMALL_COUNT_MAX = (MAX_OUTPUT_BYTES - ANSWER_SPARE) // (len(SMALL_OPS) * _longest_file_line())
SMALL_COUNT_LIMITS = (1, SMALL_COUNT_MAX)
SMALL_FILES = {  # per preset: (bytes per file, files)
    "quick": ((4096, 200), (64 * 1024, 50), (MiB, 8)),
    "full": ((4096, 2000), (64 * 1024, 500), (MiB, 64)),
}


class SmallFilesSize(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int = Field(ge=SMALL_SIZE_LIMITS[0], le=SMALL_SIZE_LIMITS[1], description="Bytes per file.")
    count: int = Field(ge=SMALL_COUNT_LIMITS[0], description=f"Files of that size, at most {SMALL_COUNT_MAX:,} (a "
                       "desktop's own disk answers its four batches at once, one line per file each).")


def small_count_error(count: int) -> str | None:
    """Why ``count`` files are too many for one size (None: they are not)."""
    if count <= SMALL_COUNT_MAX:
        return None
    return (f"{count:,} files: at most {SMALL_COUNT_MAX:,} files per size (a desktop measuring its own disk sends "
            f"one line per file for each of its {len(SMALL_OPS)} batches in one answer, and the NAS takes at most "
            f"{format_size(MAX_OUTPUT_BYTES)} per answer)")


def small_total_error(size: int, count: int) -> str | None:
    """Why ``count`` files of ``size`` bytes are too many for one size (None: they are not)."""
    if size * count <= SMALL_TOTAL_BYTES:
        return None
    return (f"{count} files of {format_size(size)} are {format_size(size * count)}; at most "
            f"{format_size(SMALL_TOTAL_BYTES)} per size")
