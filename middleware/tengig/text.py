"""Text from another machine, as it may be printed: ``shown(text)`` escapes every character a terminal
acts on instead of showing (C0 controls, DEL, C1 controls, the line and paragraph separators) and the
bidi controls that reorder what is shown (U+202E shows the rest of a line backwards): ESC becomes \\x1b,
U+202E becomes \\u202e. A desktop's name, interface and tool output, a NAS's abort reason and errors all
pass through it where tengig prints them; the Windows kit escapes the same characters (CONTROL_CLASS,
written into it)."""
from __future__ import annotations

import re

_NOT_C0 = r"\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
# One character class, in the syntax Python's re and .NET's Regex share (the Windows kit uses it as is).
CONTROL_CLASS = rf"[\x00-\x1f{_NOT_C0}]"
_CONTROL = re.compile(CONTROL_CLASS)
_CONTROL_BUT_LINES = re.compile(rf"[\x00-\x08\x0b-\x1f{_NOT_C0}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: object, *, lines: bool = False) -> str:
    """``text`` with its control characters escaped; ``lines``: keep line feeds and tabs (a message of
    several lines), a carriage return is escaped all the same."""
    return (_CONTROL_BUT_LINES if lines else _CONTROL).sub(_escaped, str(text))
