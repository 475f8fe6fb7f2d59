"""Marks a host method carries for ServerMiddleware (kept apart so services can import them without
importing the host)."""
from __future__ import annotations

from typing import Any

RAW_RESULT_ATTR = "__tengig_raw_result__"


def raw_result(fn: Any) -> Any:
    """A host method whose result is already serialized (a RawJSON text): never validated or dumped again."""
    setattr(fn, RAW_RESULT_ATTR, True)
    return fn


INLINE_ATTR = "__tengig_inline__"


def inline(fn: Any) -> Any:
    """A host method with no params whose body never waits (core.ping): the dispatcher runs it where
    the frame is read, with no task of its own. If it ever did wait, it is run again as a normal call."""
    setattr(fn, INLINE_ATTR, True)
    return fn
