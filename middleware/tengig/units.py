"""Units, explicitly. MB = 10^6 bytes, MiB = 2^20 bytes, Gb/s = 10^9 bits/s (docs/physics.md).

Rates inside tengig are bits per second (int or float) for links and bytes per second for
storage; these helpers convert and print them with the unit always written out.

A rate in bytes/s is printed in one place, format_mb_s, by one rule, in every view (the verdict and its advice,
the terminal and Markdown reports, the run list, a metric): MB/s with two decimals below 100 MB/s (11.77 MB/s:
a 100 Mb/s link's goodput, told apart from 11.8) and one decimal from 100 up (117.7 MB/s, 1176.9 MB/s at
10 Gb/s), as the value rounds; "-" for one not measured.
"""
from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, Field

from .errors import ValidationError

MB = 10**6
MiB = 2**20
GiB = 2**30

_RATE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg])(?:bit|b|bps)?\s*$", re.IGNORECASE)
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)
_RATE_SCALE = {"k": 10**3, "m": 10**6, "g": 10**9}


def parse_rate(text: str, *, field: str = "rate") -> int:
    """'10g' -> 10_000_000_000 bits/s; '2.5g', '100m', '984.4mbit' also work. Decimal (10^3) steps."""
    m = _RATE_RE.fullmatch(str(text))
    if not m:
        raise ValidationError.one(
            field, f"{text!r} is not a link rate; write a number and k, m or g (bits per second), e.g. 100m, 1g, 2.5g, 10g"
        )
    bps = float(m.group(1)) * _RATE_SCALE[m.group(2).lower()]
    if not 1_000_000 <= bps <= 400_000_000_000:
        raise ValidationError.one(field, f"{text!r} is outside 1m..400g")
    return int(round(bps))


def _rate_or_bps(value: object) -> object:
    """Accept '10g' as well as 10000000000, so JSON written by hand stays readable."""
    if isinstance(value, str):
        try:
            return parse_rate(value)
        except ValidationError as exc:
            raise ValueError(exc.errors[0][1]) from None  # pydantic adds the field path
    return value


# A line rate in a request model: bits/s, or text parse_rate reads ('10g', '2.5g', '100m'); 1m..400g.
LineRate = Annotated[int, BeforeValidator(_rate_or_bps), Field(ge=1_000_000, le=400_000_000_000)]


def parse_size(text: str, *, field: str = "size") -> int:
    """'8G', '8GiB', '512M', '1T' -> bytes. Sizes of files and pools use binary units (G = GiB)."""
    m = _SIZE_RE.fullmatch(str(text))
    if not m:
        raise ValidationError.one(field, f"{text!r} is not a size; write e.g. 512M, 8G (binary units: G = GiB)")
    scale = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


def format_rate(bps: float) -> str:
    """Bits per second with the unit: 9.415 Gb/s, 941 Mb/s."""
    if bps >= 10**9:
        return f"{bps / 10**9:.4g} Gb/s"
    if bps >= 10**6:
        return f"{bps / 10**6:.4g} Mb/s"
    return f"{bps / 10**3:.4g} kb/s"


def format_mb_s(bytes_per_s: float | None) -> str:
    """Bytes per second as MB/s (10^6 bytes/s), by the rule above: 11.77 MB/s, 117.7 MB/s; None: '-'."""
    if bytes_per_s is None:
        return "-"
    value = bytes_per_s / MB
    return f"{value:.2f} MB/s" if round(value, 2) < 100 else f"{value:.1f} MB/s"


def format_size(n: float) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", GiB), ("MiB", MiB), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{int(n)} B"

