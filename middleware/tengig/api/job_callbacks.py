"""What a capability takes from the job that runs it: a ``cancel`` Event that core.job_abort sets, and
a ``progress(percent, description)`` that goes to the job's progress. Any job with on_abort and
set_progress will do (tengig's own Job, the plugin's adapter around middlewared's)."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def cancel_event(job: Any) -> threading.Event:
    """An Event set the moment an abort of ``job`` is asked for (at once if it already was)."""
    cancel = threading.Event()
    job.on_abort(cancel.set)
    return cancel


def progress_callback(job: Any) -> Callable[[float, str], None]:
    """``progress(percent, description)`` for a capability: both go to ``job.set_progress``, the percent only
    forward (a step that reports a lower one, as a fix changing its setting inside its re-measure's span does,
    keeps the highest so far: a job's bar never runs back)."""
    highest = [0.0]

    def progress(percent: float, description: str) -> None:
        highest[0] = max(highest[0], percent)
        job.set_progress(highest[0], description)
    return progress
