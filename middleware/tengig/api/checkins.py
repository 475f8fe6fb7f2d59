"""The applies waiting for a person's confirmation, one per capability (their jobs hold a lock, so
one apply at a time): `tengig.mesh.checkin` / `tengig.lagg.checkin` confirm them. The countdown
goes to the job's progress.extra.checkin, which the panel shows beside its Confirm button."""
from __future__ import annotations

import errno
import threading
from collections.abc import Callable

from ..checkin import CheckinGate
from ..errors import TengigError

_GATES: dict[str, CheckinGate] = {}
_LOCK = threading.Lock()


def gate_for(namespace: str) -> CheckinGate:
    with _LOCK:
        return _GATES.setdefault(namespace, CheckinGate())


def waiter(job, namespace: str, cancel: threading.Event, timeout: int) -> Callable[[float], bool]:
    """await_checkin for an apply: wait on the namespace's gate, telling the job the seconds left."""
    def await_checkin(seconds: float) -> bool:
        def tick(left: float) -> None:
            job.set_progress(extra={"checkin": {"waiting": True, "seconds_left": round(left), "timeout": timeout,
                                                "method": f"{namespace}.checkin"}})
        try:
            return gate_for(namespace).wait(seconds, cancel=cancel, tick=tick)
        finally:
            job.set_progress(extra={"checkin": {"waiting": False, "seconds_left": 0, "timeout": timeout,
                                                "method": f"{namespace}.checkin"}})
    return await_checkin


def confirm(namespace: str) -> bool:
    if not gate_for(namespace).confirm():
        raise TengigError(f"no {namespace}.apply is waiting for a confirmation (it was confirmed already, it "
                          "timed out and was taken back, or none was started with wait_for_checkin)",
                          errno=errno.ENOENT)
    return True
