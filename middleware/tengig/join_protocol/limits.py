"""The bounds of every value an instruction carries, checked by the desktop before anything runs (desk/,
and the Windows kit, which has them written in from here) and kept by the NAS when it asks; and tengig's
iperf3 ports.

The small-file limits: each size from 512 bytes to 16 MiB, at most 256 MiB of one size (the desktop keeps a
copy of each file, and its own timer holds one size in memory), and at most SMALL_COUNT_MAX files of one size
(2,457 today): a desktop's own disk sends its four batches in one answer, one line per file each, and the NAS
takes at most MAX_OUTPUT_BYTES of it."""
from __future__ import annotations

from ..units import GiB, MiB, format_size
from .lines import SMALL_BATCH_OPS, own_file_line, stamped
from .messages import MAX_OUTPUT_BYTES

# tengig's iperf3 ports: the NAS's servers listen from BASE_PORT up (one per desktop at once), and a desktop's
# server towards another desktop (a mesh verify's peer instruction) only listens within PEER_PORTS.
BASE_PORT = 5201
PEER_PORTS = (BASE_PORT, BASE_PORT + 63)

# The bounds of every whole number an iperf3 instruction carries.
IPERF3_LIMITS = {"port": (1, 65535), "seconds": (1, 600), "omit": (0, 60), "streams": (1, 64)}

# An SMB copy's file (and the desktop's own disk's, the same size): the NAS asks for 64 MiB to 1 GiB per copy
# (its presets), or 2 x its ARC where it cannot keep the ARC out (bench/phases/cache_policy.py): 64 GiB covers
# an ARC of 32 GiB, and is already minutes per copy at 10 Gb/s. A NAS that asks for more gets a refusal, not a
# desktop's disk filled.
SMB_OPS = ("prepare", "put", "get")
MIN_FILE_BYTES = 1024 * 1024
MAX_FILE_BYTES = 64 * GiB
SMB_MIN_COPY = 64 * MiB  # the smallest file an SMB copy moves (quick on a slow link: pool_presets.smb_copy_size)

# A small-file instruction: its ops (prepare makes the files on the desktop, disk runs the four batches on its
# own disk) and bounds.
SMALLFILES_OPS = ("prepare", *SMALL_BATCH_OPS, "disk")
SMALL_SIZE_LIMITS = (512, 16 * MiB)
SMALL_TOTAL_BYTES = 256 * MiB
ANSWER_SPARE = 16 * 1024  # of an answer: its argv (the --disk path), its stderr, the batches' start and end lines
LONGEST_SECONDS = 99999.999999  # a line's time or a call's (the NAS waits far less for a batch)


def _longest_file_line() -> int:
    """Bytes of the longest line tengig's own timer sends for one file, its newline included."""
    line = own_file_line("f99999.bin", SMALL_SIZE_LIMITS[1], *[LONGEST_SECONDS] * 3)
    return len(stamped(LONGEST_SECONDS, line)) + 1


SMALL_COUNT_MAX = (MAX_OUTPUT_BYTES - ANSWER_SPARE) // (len(SMALL_BATCH_OPS) * _longest_file_line())
SMALL_COUNT_LIMITS = (1, SMALL_COUNT_MAX)

# A peer instruction (towards another desktop): its ops and bounds; its port is within PEER_PORTS.
PEER_OPS = ("listen", "connect", "served")
PEER_LIMITS = {"seconds": (1, 60), "omit": (0, 10), "streams": (1, 16)}


def small_count_error(count: int) -> str | None:
    """Why ``count`` files are too many for one size (None: they are not)."""
    if count <= SMALL_COUNT_MAX:
        return None
    return (f"{count:,} files: at most {SMALL_COUNT_MAX:,} files per size (a desktop measuring its own disk sends "
            f"one line per file for each of its {len(SMALL_BATCH_OPS)} batches in one answer, and the NAS takes at "
            f"most {format_size(MAX_OUTPUT_BYTES)} per answer)")


def small_total_error(size: int, count: int) -> str | None:
    """Why ``count`` files of ``size`` bytes are too many for one size (None: they are not)."""
    if size * count <= SMALL_TOTAL_BYTES:
        return None
    return (f"{count} files of {format_size(size)} are {format_size(size * count)}; at most "
            f"{format_size(SMALL_TOTAL_BYTES)} per size")
