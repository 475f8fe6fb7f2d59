"""JSON as Windows PowerShell 5.1 writes it with `ConvertTo-Json -Compress` (no Windows here): the text of
.NET Framework's JavaScriptSerializer, which 5.1's ConvertTo-Json returns as it is when -Compress is given.

- Strings through HttpUtility.JavaScriptStringEncode: \\r \\t \\" \\\\ \\n \\b \\f by name; every other
  character below U+0020, and ' < > & (& since .NET Framework 4.5) and U+0085, U+2028, U+2029 as \\uXXXX
  (lower-case hex); every other character as it is, non-ASCII included (the kit then sends the text as
  UTF-8, so é is 2 bytes and a character outside the BMP 4).
- Numbers: integers as digits; a double as Double.ToString("R", InvariantCulture) (2.9, 0, 1E-05).
- No blank anywhere between tokens; keys in the order of the dictionary (an [ordered] one keeps its
  order; a plain @{} Hashtable has an order of its own: the caller gives the order it wants to test).

Sources: .NET Framework's HttpUtility.JavaScriptStringEncode (the & escape since 4.5: Microsoft's
"HttpUtility.JavaScriptStringEncode escapes ampersand" compatibility note); PowerShell issue 7693 (5.1
writes "'def'" as "\\u0027def\\u0027", PowerShell 6 does not). Printable non-ASCII is not escaped by 5.1
(Newtonsoft's EscapeNonAscii is a PowerShell 6+ option), so it goes as UTF-8.

Strings are .NET strings: UTF-16 code units. ``Utf16`` holds one so a slice can fall between the two
halves of a surrogate pair, as Substring can; ``str`` is accepted where no slicing happens.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NAMED = {"\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\", "\n": "\\n", "\b": "\\b", "\f": "\\f"}
AS_UNICODE = {"'", "<", ">", "&", "\u0085", "\u2028", "\u2029"}


@dataclass(frozen=True)
class Utf16:
    """A .NET string: its UTF-16 code units."""
    units: tuple[int, ...]

    @classmethod
    def of(cls, text: str) -> Utf16:
        data = text.encode("utf-16-le", "surrogatepass")
        return cls(tuple(int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data), 2)))

    def __len__(self) -> int:
        return len(self.units)

    def substring(self, start: int, length: int) -> Utf16:
        return Utf16(self.units[start:start + length])

    def is_high_surrogate(self, index: int) -> bool:
        return 0xD800 <= self.units[index] <= 0xDBFF

    def text(self) -> str:
        """As Python text (a lone half of a pair stays a lone surrogate)."""
        return b"".join(u.to_bytes(2, "little") for u in self.units).decode("utf-16-le", "surrogatepass")


def _string(value: str | Utf16) -> str:
    units = value.units if isinstance(value, Utf16) else Utf16.of(value).units
    out: list[int] = [ord('"')]
    for unit in units:
        ch = chr(unit)
        if ch in NAMED:
            out += map(ord, NAMED[ch])
        elif unit < 0x20 or ch in AS_UNICODE:
            out += map(ord, f"\\u{unit:04x}")
        else:
            out.append(unit)
    return Utf16(tuple(out) + (ord('"'),)).text()


def utf8(text: str) -> bytes:
    """Encoding.UTF8.GetBytes: a lone half of a surrogate pair becomes U+FFFD."""
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text).encode()


def _double(value: float) -> str:
    """Double.ToString("R"): the shortest text that reads back, in the G format's layout (digits up to
    an exponent of 14 and down to 0.0001, else d.dddE+XX or d.dddE-XX)."""
    if value == 0:
        return "0"
    digits, exponent = _shortest(abs(value))
    sign = "-" if value < 0 else ""
    if -5 < exponent < 15:
        if exponent >= len(digits) - 1:
            return sign + digits + "0" * (exponent - len(digits) + 1)
        if exponent >= 0:
            return f"{sign}{digits[:exponent + 1]}.{digits[exponent + 1:]}"
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{sign}{mantissa}E{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"


def _shortest(value: float) -> tuple[str, int]:
    """(significant digits, decimal exponent of the first) of the shortest repr that reads back."""
    mantissa, _, exp = f"{value:.16e}".partition("e")
    for precision in range(1, 18):
        text = f"{value:.{precision - 1}e}"
        if float(text) == value:
            mantissa, _, exp = text.partition("e")
            break
    return mantissa.replace(".", "").rstrip("0") or "0", int(exp)


def convert_to_json(value: Any) -> str:
    """`ConvertTo-Json -Compress -InputObject value` of Windows PowerShell 5.1."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, (str, Utf16)):
        return _string(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_string(k)}:{convert_to_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(convert_to_json(v) for v in value) + "]"
    raise TypeError(f"no JSON of {type(value).__name__} here")
