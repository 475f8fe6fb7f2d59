"""Colours as a browser computes them ("rgb(13, 17, 23)"), and the WCAG contrast ratio of two."""
from __future__ import annotations

import re

TEXT_CONTRAST = 4.5  # WCAG AA for body text


def rgb(css: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)", css)
    assert m, f"not a computed colour: {css!r}"
    assert m[4] is None or float(m[4]) == 1, f"a see-through colour cannot be judged: {css}"
    return int(m[1]), int(m[2]), int(m[3])


def contrast(pair: dict[str, str]) -> float:
    """Contrast ratio of {fg, bg}, 1 to 21."""
    def luminance(css: str) -> float:
        lin = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb(css)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(pair["fg"]), luminance(pair["bg"])), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
