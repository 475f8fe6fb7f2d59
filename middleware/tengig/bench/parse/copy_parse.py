"""A joined desktop's SMB copy, read by the tool that made it (pure).

Linux and macOS desktops copy with Samba's smbclient, Windows desktops (the join kit) write with
robocopy; a desktop that copies through a mounted share, and the kit's reads (into memory, where
robocopy can only write to a disk), time the copy themselves and print one line, `tengig-copy: OP N
bytes in S s (HOW)`. The submission's argv[0] says which, and its output is read by that tool's
parser. All give the same SmbTransfer. A tool tengig does not know is refused, naming it: its output
is never guessed at."""
from __future__ import annotations

import re

from pydantic import ValidationError as PydanticError

from ...errors import ToolOutputError
from ...join_protocol.lines import OWN_COPY
from .robocopy_parse import ROBOCOPY_FAILED, parse_robocopy
from .smbclient_parse import SmbTransfer, parse_transfer

MAX_BYTES_PER_S = 10.0**13 / 8  # 10 Tb/s: more than any link tengig measures
# "tengig-copy: get 268435456 bytes in 2.285312 s (unbuffered, read into memory and discarded)"
_OWN_LINE = re.compile(r"^tengig-copy: (get|put) (\d+) bytes in (\d+(?:\.\d+)?(?:[eE][-+]?\d+)?) s\b(.*)$",
                       re.MULTILINE)


def tool_of(argv: list[str]) -> str:
    """'C:\\Windows\\System32\\Robocopy.exe' -> 'robocopy'; '/usr/bin/smbclient' -> 'smbclient'."""
    if not argv or not argv[0]:
        return ""
    name = argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.removesuffix(".exe")


def exit_ok(argv: list[str], exit_code: int) -> bool:
    """Whether the program in argv says it succeeded (robocopy counts success differently)."""
    if tool_of(argv) == "robocopy":
        return 0 <= exit_code < ROBOCOPY_FAILED
    return exit_code == 0


def parse_own_copy(output: str, *, direction: str, expected_bytes: int) -> SmbTransfer:
    """A copy the desktop timed itself (join_protocol.lines.format_own_copy's line): the last line of the op ``direction`` means (get: read, put: write)."""
    found = list(_OWN_LINE.finditer(output))
    if not found:
        raise ToolOutputError(f"the desktop's copy printed no '{OWN_COPY}: OP N bytes in S s' line: "
                              f"{output.strip()[-300:] or '(nothing)'}")
    wanted = "get" if direction == "read" else "put"
    mine = [m for m in found if m.group(1) == wanted]
    if not mine:
        raise ToolOutputError(f"the desktop says it made a {found[-1].group(1)}, the NAS asked for a {direction}")
    size, seconds = int(mine[-1].group(2)), float(mine[-1].group(3))
    if size != expected_bytes:
        raise ToolOutputError(f"the desktop copied {size} bytes, expected {expected_bytes}")
    if seconds <= 0:
        raise ToolOutputError(f"the desktop reports its copy of {size} bytes took {seconds:g} s")
    return SmbTransfer(direction=direction, bytes=size, seconds=seconds, bytes_per_s=size / seconds)


def parse_copy(argv: list[str], output: str, *, direction: str, expected_bytes: int,
               exit_code: int | None = None) -> SmbTransfer:
    """``exit_code``: the tool's, when known (robocopy's says whether the copy happened)."""
    tool = tool_of(argv)
    parsers = {"smbclient": lambda: parse_transfer(output, direction=direction, expected_bytes=expected_bytes),
               "robocopy": lambda: parse_robocopy(output, direction=direction, expected_bytes=expected_bytes,
                                                  exit_code=exit_code),
               OWN_COPY: lambda: parse_own_copy(output, direction=direction, expected_bytes=expected_bytes)}
    if tool in parsers:
        try:
            result = parsers[tool]()
        except (PydanticError, OverflowError) as exc:  # a rate of 400 digits is infinite as a float
            raise ToolOutputError(f"{tool} printed a rate that is not a finite number") from exc
        if result.bytes_per_s > MAX_BYTES_PER_S:
            raise ToolOutputError(f"{tool} printed a rate of {result.bytes_per_s:g} bytes/s: more than any link "
                                  "carries")
        return result
    if not argv:
        raise ToolOutputError(f"the desktop ran no copy program: {output.strip()[-300:] or '(nothing said)'}")
    raise ToolOutputError(f"the SMB copy was made with {argv[0]!r}: tengig reads the output of smbclient, "
                          f"robocopy and {OWN_COPY} only")
