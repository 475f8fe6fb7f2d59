"""How many examples the property tests try. The inner loop (plain pytest, `make fast`) tries a quarter of what
`make test` does (scripts/test.sh sets TENGIG_TEST_DEPTH=full): the same properties, fewer random inputs, so
the loop a developer runs between edits stays short while every full run still tries them all."""
from __future__ import annotations

import os

DEPTHS = {"inner": 4, "full": 1}  # the divisor of each test's full count


def _divisor() -> int:
    depth = os.environ.get("TENGIG_TEST_DEPTH", "inner")
    if depth not in DEPTHS:
        raise ValueError(f"TENGIG_TEST_DEPTH={depth!r}: give 'inner' (a quarter of the examples; unset: inner) "
                         "or 'full' (every example, as make test runs them)")
    return DEPTHS[depth]


def examples(full: int) -> int:
    """``full`` examples under make test; a quarter (at least one) in the inner loop."""
    return max(1, full // _divisor())
