"""Parse robocopy's job summary for one copied file (pure): what the Windows join kit submits.

The kit runs `robocopy SRC DST FILE /J /BYTES /NP ...` and sends robocopy's own log; its summary:

                   Total    Copied   Skipped  Mismatch    FAILED    Extras
        Dirs :         1         0         1         0         0         0
       Files :         1         1         0         0         0         0
       Bytes : 268435456 268435456         0         0         0         0
       Times :   0:00:02   0:00:02                       0:00:00   0:00:00

       Speed :           111848106 Bytes/sec.
       Speed :            6399.999 MegaBytes/min.

/BYTES makes the Bytes row whole bytes (without it robocopy prints "256.0 m"). The Speed line is
robocopy's bytes over its own copy time (connect excluded), so the seconds are recovered from it, as
for smbclient's rate. A copy is refused when a file FAILED, when fewer bytes than asked were copied
(a skipped file copies nothing), or when the Speed line disagrees with the copy time robocopy printed.
robocopy prints these labels in the language of Windows; only English labels are read.
"""
from __future__ import annotations

import re

from ..errors import ToolOutputError
from .smbclient_parse import SmbTransfer

COLUMNS = ("total", "copied", "skipped", "mismatch", "failed", "extras")
_HEADER = re.compile(r"^\s*Total\s+Copied\s+Skipped\s+Mismatch\s+FAILED\s+Extras\s*$", re.MULTILINE)
_ROW = re.compile(r"^\s*(Dirs|Files|Bytes|Times)\s*:(.*)$", re.MULTILINE)
_SPEED = re.compile(r"^\s*Speed\s*:\s*(\d+)\s+Bytes/sec\.", re.MULTILINE)
_ERROR = re.compile(r"ERROR \d+ \(0x[0-9A-Fa-f]{8}\).*(?:\n(?!\s*$).*)?")
_CLOCK = re.compile(r"^(\d+):(\d{2}):(\d{2})$")
TIME_SLACK_S = 1.0  # robocopy's Times row has whole seconds
TIME_SLACK_RATIO = 0.05


def _errors(output: str) -> str:
    found = [" ".join(m.group(0).split()) for m in _ERROR.finditer(output)]
    return f": {'; '.join(dict.fromkeys(found))[:300]}" if found else ""


def _row(rows: dict[str, str], name: str) -> dict[str, int]:
    cells = rows.get(name, "").split()
    if len(cells) != len(COLUMNS) or not all(c.isdigit() for c in cells):
        hint = " (run it with /BYTES)" if name == "Bytes" and rows.get(name) else ""
        raise ToolOutputError(f"robocopy's {name} row is not {len(COLUMNS)} whole numbers{hint}: "
                              f"{rows.get(name, '(missing)').strip()[:120]!r}")
    return dict(zip(COLUMNS, map(int, cells)))


def _copy_seconds(rows: dict[str, str]) -> float | None:
    cells = rows.get("Times", "").split()
    clock = _CLOCK.match(cells[1]) if len(cells) > 1 else None
    if not clock:
        return None
    h, m, s = map(int, clock.groups())
    return 3600.0 * h + 60 * m + s


def parse_robocopy(output: str, *, direction: str, expected_bytes: int) -> SmbTransfer:
    if direction not in ("read", "write"):
        raise ValueError(f"direction must be read or write, not {direction!r}")
    header = None
    for header in _HEADER.finditer(output):
        pass  # the last summary is the job's (a log may hold earlier runs)
    if header is None:
        raise ToolOutputError("robocopy printed no job summary (Total Copied Skipped ... line; only English "
                              f"robocopy output is read){_errors(output)}: {output.strip()[-300:] or '(nothing)'}")
    tail = output[header.end():]
    rows = {m.group(1): m.group(2) for m in _ROW.finditer(tail)}
    files, size = _row(rows, "Files"), _row(rows, "Bytes")
    if files["failed"] or size["failed"]:
        raise ToolOutputError(f"robocopy reports {files['failed']} file(s) FAILED{_errors(output)}")
    if size["copied"] != expected_bytes:
        why = " (it skipped the file: the same file was already there)" if files["skipped"] else ""
        raise ToolOutputError(f"robocopy copied {size['copied']} bytes, expected {expected_bytes}{why}")
    speed = _SPEED.search(tail)
    if not speed:
        raise ToolOutputError("robocopy printed no 'Speed : N Bytes/sec.' line")
    bytes_per_s = float(speed.group(1))
    if bytes_per_s <= 0:
        raise ToolOutputError("robocopy reports a speed of 0 Bytes/sec.: no bytes moved")
    seconds = expected_bytes / bytes_per_s
    printed = _copy_seconds(rows)
    if printed is not None and abs(seconds - printed) > TIME_SLACK_S + TIME_SLACK_RATIO * printed:
        raise ToolOutputError(f"robocopy's speed ({speed.group(1)} Bytes/sec., so {seconds:.1f} s for "
                              f"{expected_bytes} bytes) disagrees with its copy time ({printed:g} s)")
    return SmbTransfer(direction=direction, bytes=expected_bytes, seconds=seconds, bytes_per_s=bytes_per_s)
