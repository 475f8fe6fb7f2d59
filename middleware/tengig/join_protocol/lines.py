"""The lines a desktop prints for what it timed itself, which the NAS reads (bench/parse/copy_parse.py and
smallfiles_parse.py): one format, written here, printed by tengig's client and the Windows kit alike.

- a copy it timed itself (through a mounted share, the kit's reads into memory, its own disk):
  ``tengig-copy: OP N bytes in S s (HOW)``;
- its small files: every line stamped with the seconds since its tool started, and tengig's own per-file timer's
  ``tengig-small: start OP`` / ``end OP`` around a batch and ``tengig-small: file NAME BYTES open=S io=S close=S``
  per file."""
from __future__ import annotations

from typing import Literal

OWN_COPY = "tengig-copy"
OWN_TIMER = "tengig-small"
SmallOp = Literal["write", "read", "stat", "delete"]
SMALL_BATCH_OPS: tuple[SmallOp, ...] = ("write", "stat", "read", "delete")  # one small-file test's batches, in order


def format_own_copy(op: str, size: int, seconds: float, how: str) -> str:
    """The line a desktop prints for a copy it timed itself (what the NAS's parse_own_copy reads)."""
    return f"{OWN_COPY}: {op} {size} bytes in {seconds:.6f} s ({how})"


def stamped(seconds: float, line: str) -> str:
    """A line as the desktop sends it: the seconds since its tool started in front."""
    return f"{seconds:.6f} {line}"


def own_file_line(name: str, moved: int, t_open: float, t_io: float, t_close: float) -> str:
    """tengig's own timer's line for one file (the Windows kit prints the same)."""
    return f"{OWN_TIMER}: file {name} {moved} open={t_open:.6f} io={t_io:.6f} close={t_close:.6f}"
