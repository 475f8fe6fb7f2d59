"""Parse robocopy's job summary for one copied file (pure), in whatever language Windows prints it.

The kit runs `robocopy SRC DST FILE /J /BYTES /NP ...` and sends robocopy's own log; its summary, in
English:

                   Total    Copied   Skipped  Mismatch    FAILED    Extras
        Dirs :         1         0         1         0         0         0
       Files :         1         1         0         0         0         0
       Bytes : 268435456 268435456         0         0         0         0
       Times :   0:00:02   0:00:02                       0:00:00   0:00:00

       Speed :           111848106 Bytes/sec.
       Speed :            6399.999 MegaBytes/min.

robocopy prints its labels in the display language of Windows (German: Verzeich., Dateien, Bytes,
Zeiten, Geschwindigkeit), never its layout: the summary is read by position, not by its words. It is
the last run of four rows "LABEL : cells" where the first three hold six whole numbers each
(directories, files, bytes: total, copied, skipped, mismatch, failed, extras) and the fourth times
h:mm:ss (total, copied, ...); the first row after it whose value starts with a whole number is the
speed in bytes per second. /BYTES makes the bytes row whole bytes (without it robocopy prints
"256.0 m"). The speed is robocopy's bytes over its own copy time (connect excluded), so the seconds
are recovered from it, as for smbclient's rate.

robocopy's exit code is a bit mask (1 copied, 2 extra files, 4 mismatches, 8 and up failures); with
the summary it says whether the copy happened. A copy is refused when a file failed, when fewer bytes
than asked were copied (a skipped file copies nothing), or when the speed disagrees with the copy time
robocopy printed; and only when the summary truly cannot be read, saying what is missing.
"""
from __future__ import annotations

import re

from ...errors import ToolOutputError
from .smbclient_parse import SmbTransfer

COLUMNS = ("total", "copied", "skipped", "mismatch", "failed", "extras")
ROBOCOPY_FAILED = 8  # exit code bits: 1 copied, 2 extras, 4 mismatches; 8 and up: something failed
ROBOCOPY_COPIED = 1
# "  Dirs :  1 0 ...", "Verzeich.: 1 0 ...": a label (no digit first, no colon) and what follows its colon
_LABELLED = re.compile(r"^\s*([^\d\s:][^:]*?)\s*:(.*)$")
_CLOCK = re.compile(r"^(\d+):(\d{2}):(\d{2})$")
_SPEED = re.compile(r"^\s*(\d+)(?=\s|$)")
# "ERROR 5 (0x00000005) Copying File ...", "FEHLER 5 (0x00000005) ...": the number and its hex, in any
# language, then the system's message on the next line
_ERROR = re.compile(r"\S+ \d+ \(0x[0-9A-Fa-f]{8}\).*(?:\n(?!\s*$).*)?")
TIME_SLACK_S = 1.0  # robocopy's times row has whole seconds
TIME_SLACK_RATIO = 0.05


def _errors(output: str) -> str:
    found = [" ".join(m.group(0).split()) for m in _ERROR.finditer(output)]
    return f": {'; '.join(dict.fromkeys(found))[:300]}" if found else ""


def _counts(value: str) -> dict[str, int] | None:
    cells = value.split()
    if len(cells) != len(COLUMNS) or not all(c.isdigit() for c in cells):
        return None
    return dict(zip(COLUMNS, map(int, cells)))


def _clocks(value: str) -> list[float] | None:
    cells = [_CLOCK.match(c) for c in value.split()]
    if len(cells) < 2 or not all(cells):
        return None
    return [3600.0 * int(m.group(1)) + 60 * int(m.group(2)) + int(m.group(3)) for m in cells]


def _rows(output: str) -> list[tuple[str, str]]:
    """Every "LABEL : value" line, in order; a line without one ends a run of rows (an empty label)."""
    out = []
    for line in output.replace("\r", "").split("\n"):
        m = _LABELLED.match(line)
        out.append((m.group(1), m.group(2)) if m else ("", line))
    return out


def _summary(output: str) -> tuple[dict[str, int], dict[str, int], list[float], list[tuple[str, str]]]:
    """(files, bytes, times, the rows after it) of the last job summary; ToolOutputError says what is
    missing."""
    rows = _rows(output)
    found = None
    for i in range(len(rows) - 3):
        dirs, files, size, times = (rows[i + k] for k in range(4))
        if all(label for label, _ in (dirs, files, size, times)) and _counts(dirs[1]) and _counts(files[1]) \
                and _clocks(times[1]):
            found = i  # the last summary is the job's (a log may hold earlier runs)
    if found is None:
        raise ToolOutputError(
            "robocopy's job summary is not in what it printed (four rows after the last line of dashes: "
            "directories and files as six whole numbers each, bytes, then times h:mm:ss; in any language)"
            f"{_errors(output)}: {output.strip()[-300:] or '(nothing)'}")
    size_label, size_value = rows[found + 2]
    size = _counts(size_value)
    if size is None:
        raise ToolOutputError(f"robocopy's bytes row ({size_label}) is not {len(COLUMNS)} whole numbers (run it "
                              f"with /BYTES): {size_value.strip()[:120]!r}")
    return _counts(rows[found + 1][1]), size, _clocks(rows[found + 3][1]), rows[found + 4:]


def _speed(after: list[tuple[str, str]]) -> float:
    """Bytes per second: the first labelled row after the times whose value starts with a whole number."""
    for label, value in after:
        if not label:
            continue
        m = _SPEED.match(value)
        if m:
            return float(m.group(1))
        if value.strip()[:1].isdigit():
            raise ToolOutputError(f"robocopy's speed row ({label}) is not a whole number of bytes per second: "
                                  f"{value.strip()[:80]!r}")
    raise ToolOutputError("robocopy printed no speed after its times row (the row of bytes per second)")


def parse_robocopy(output: str, *, direction: str, expected_bytes: int, exit_code: int | None = None) -> SmbTransfer:
    """One file's copy; ``exit_code``: robocopy's, when known (a failure or nothing copied is refused
    with it, whatever the log says)."""
    if direction not in ("read", "write"):
        raise ValueError(f"direction must be read or write, not {direction!r}")
    files, size, times, after = _summary(output)
    if files["failed"] or size["failed"]:
        raise ToolOutputError(f"robocopy reports {files['failed']} file(s) FAILED{_errors(output)}")
    if exit_code is not None and exit_code >= ROBOCOPY_FAILED:
        raise ToolOutputError(f"robocopy exited with {exit_code} (8 and up: a copy failed){_errors(output)}")
    if size["copied"] != expected_bytes:
        why = " (it skipped the file: the same file was already there)" if files["skipped"] else ""
        raise ToolOutputError(f"robocopy copied {size['copied']} bytes, expected {expected_bytes}{why}")
    if exit_code is not None and not exit_code & ROBOCOPY_COPIED:
        raise ToolOutputError(f"robocopy exited with {exit_code}: it says it copied no file, while its summary "
                              f"counts {size['copied']} bytes copied")
    bytes_per_s = _speed(after)
    if bytes_per_s <= 0:
        raise ToolOutputError("robocopy reports a speed of 0 bytes per second: no bytes moved")
    seconds = expected_bytes / bytes_per_s
    printed = times[1]
    if abs(seconds - printed) > TIME_SLACK_S + TIME_SLACK_RATIO * printed:
        raise ToolOutputError(f"robocopy's speed ({bytes_per_s:.0f} bytes per second, so {seconds:.1f} s for "
                              f"{expected_bytes} bytes) disagrees with its copy time ({printed:g} s)")
    return SmbTransfer(direction=direction, bytes=expected_bytes, seconds=seconds, bytes_per_s=bytes_per_s)
