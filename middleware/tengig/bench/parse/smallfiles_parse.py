"""A joined desktop's small-file test, read from what it printed (pure).

The desktop prints every line of its tool with the seconds since the tool started in front
(``0.116911 putting file f00001.bin as \\d\\f00001.bin (...)``), as the lines arrived: its clock, read at
each line, is the only timing the NAS gets, and the NAS reads it from these lines itself.

Two tools:
- Samba's smbclient running one batch (``mput *``, ``mget *``, ``ls``, ``del *``) between two ``pwd``
  commands: the ``Current directory is`` lines mark where the batch starts and ends (pwd asks the server
  nothing), so the connection's setup is not in the figure; each ``putting file`` / ``getting file`` line is
  printed as that file is closed, so the time between two of them is one file's create (or open), data and
  close, its round trips included. ``ls`` and ``del *`` print nothing per file: only their batch is timed.
- tengig's own per-file timer (a mounted share, the desktop's own disk): ``tengig-small: start OP`` and
  ``tengig-small: end OP`` around the batch, and per file ``tengig-small: file NAME BYTES open=S io=S
  close=S``, each call timed by itself.

The lines' format is the join protocol's (join_protocol/lines.py), where the desktop's side writes them."""
from __future__ import annotations

import math
import re
from pydantic import BaseModel, ConfigDict, Field

from ...errors import ToolOutputError
from ...join_protocol.lines import OWN_TIMER, SmallOp

_TIMED = re.compile(r"^(\d+\.\d+) (.*)$")
_PWD = "Current directory is "
_PUT = re.compile(r"^putting file .* as .* \(")
_GET = re.compile(r"^getting file .* of size (\d+) as ")
_OWN_MARK = re.compile(rf"^{OWN_TIMER}: (start|end) (write|read|stat|delete)$")
_OWN_FILE = re.compile(rf"^{OWN_TIMER}: file \S+ (\d+) open=(\d+\.\d+) io=(\d+\.\d+) close=(\d+\.\d+)$")


class OpTiming(BaseModel):
    """One batch of files, as the desktop's lines timed it."""

    model_config = ConfigDict(allow_inf_nan=False)

    op: SmallOp
    files: int = Field(ge=0, description="Files the batch handled, as its tool printed them (or as asked, for a "
                       "tool that prints nothing per file).")
    seconds: float = Field(ge=0, description="From the batch's first mark to its last, s.")
    per_file: list[float] = Field(default_factory=list, description="Each file's whole operation, s (empty: the tool "
                                  "prints nothing per file).")
    opens: list[float] = Field(default_factory=list, description="Each file's open or create alone, s (tengig's own "
                               "timer only).")
    closes: list[float] = Field(default_factory=list, description="Each file's close alone, s (tengig's own timer).")
    bytes_read: int | None = Field(None, description="Bytes the tool said it read (reads).")


def timed_lines(text: str) -> list[tuple[float, str]]:
    """The desktop's ``SECONDS LINE`` lines; anything else (a line without its time) is left out."""
    out = []
    for raw in text.splitlines():
        m = _TIMED.match(raw)
        if m:
            t = float(m.group(1))
            if not math.isfinite(t):
                raise ToolOutputError(f"the desktop timed a line at {m.group(1)!r} s, not a number")
            out.append((t, m.group(2)))
    return out


def parse_smallfiles(tool: str, text: str, op: SmallOp, *, expected: int) -> OpTiming:
    """One op's timing from the timed output of ``tool`` (smbclient or tengig's own timer); ``expected``:
    the files the NAS asked for (a batch that handled another number is refused)."""
    lines = timed_lines(text)
    if tool == OWN_TIMER:
        timing = _own(lines, op)
    elif tool == "smbclient":
        timing = _smbclient(lines, op, expected)
    else:
        raise ToolOutputError(f"the desktop timed its small files with {tool or 'nothing'!r}: tengig reads "
                              f"smbclient and {OWN_TIMER} only")
    if timing.files != expected:
        raise ToolOutputError(f"the desktop's {op} of small files handled {timing.files} file(s), the NAS asked "
                              f"for {expected}")
    if timing.seconds <= 0:
        raise ToolOutputError(f"the desktop's {op} of {expected} small file(s) took {timing.seconds} s: not a time "
                              "tengig can divide by")
    return timing


def _smbclient(lines: list[tuple[float, str]], op: SmallOp, expected: int) -> OpTiming:
    marks = [t for t, line in lines if line.startswith(_PWD)]
    if len(marks) != 2:
        raise ToolOutputError(f"smbclient's {op} printed {len(marks)} 'Current directory is' mark(s), tengig's "
                              "batch has 2 (before and after): the batch did not run through")
    start, end = marks
    if op in ("stat", "delete"):
        return OpTiming(op=op, files=expected, seconds=end - start)
    pattern = _PUT if op == "write" else _GET
    events = [(t, pattern.match(line)) for t, line in lines if pattern.match(line) and start <= t <= end]
    times = [t for t, _ in events]
    per_file = [b - a for a, b in zip([start, *times[:-1]], times)]
    read = sum(int(m.group(1)) for _, m in events) if op == "read" else None
    return OpTiming(op=op, files=len(events), seconds=end - start, per_file=per_file, bytes_read=read)


def _own(lines: list[tuple[float, str]], op: SmallOp) -> OpTiming:
    start = end = None
    files: list[tuple[int, float, float, float]] = []
    for t, line in lines:
        if (m := _OWN_MARK.match(line)) and m.group(2) == op:
            if m.group(1) == "start":
                start, files = t, []
            else:
                end = t
        elif (f := _OWN_FILE.match(line)) and start is not None and end is None:
            files.append((int(f.group(1)), float(f.group(2)), float(f.group(3)), float(f.group(4))))
    if start is None or end is None:
        raise ToolOutputError(f"{OWN_TIMER} printed no whole {op} batch (its start and end lines)")
    return OpTiming(op=op, files=len(files), seconds=end - start,
                    per_file=[o + i + c for _, o, i, c in files], opens=[o for _, o, _, _ in files],
                    closes=[c for _, _, _, c in files],
                    bytes_read=sum(n for n, *_ in files) if op == "read" else None)
