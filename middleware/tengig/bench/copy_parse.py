"""A joined desktop's SMB copy, read by the tool that made it (pure).

Linux and macOS desktops copy with Samba's smbclient, Windows desktops (the join kit) with robocopy;
the submission's argv[0] says which, and its output is read by that tool's parser. Both give the same
SmbTransfer. A tool tengig does not know is refused, naming it: its output is never guessed at."""
from __future__ import annotations

from pydantic import ValidationError as PydanticError

from ..errors import ToolOutputError
from .robocopy_parse import parse_robocopy
from .smbclient_parse import SmbTransfer, parse_transfer

# robocopy's exit code is a bit mask: 1 copied, 2 extra files, 4 mismatches; 8 and up are failures.
ROBOCOPY_FAILED = 8
MAX_BYTES_PER_S = 10.0**13 / 8  # 10 Tb/s: more than any link tengig measures
PARSERS = {"smbclient": parse_transfer, "robocopy": parse_robocopy}


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


def parse_copy(argv: list[str], output: str, *, direction: str, expected_bytes: int) -> SmbTransfer:
    tool = tool_of(argv)
    parse = PARSERS.get(tool)
    if parse is not None:
        try:
            result = parse(output, direction=direction, expected_bytes=expected_bytes)
        except (PydanticError, OverflowError) as exc:  # a rate of 400 digits is infinite as a float
            raise ToolOutputError(f"{tool} printed a rate that is not a finite number") from exc
        if result.bytes_per_s > MAX_BYTES_PER_S:
            raise ToolOutputError(f"{tool} printed a rate of {result.bytes_per_s:g} bytes/s: more than any link "
                                  "carries")
        return result
    if not argv:
        raise ToolOutputError(f"the desktop ran no copy program: {output.strip()[-300:] or '(nothing said)'}")
    raise ToolOutputError(f"the SMB copy was made with {argv[0]!r}: tengig reads the output of smbclient and "
                          "robocopy only")
