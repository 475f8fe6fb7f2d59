"""The applies waiting for a person's confirmation, one per capability (their jobs hold a lock, so
one apply at a time): `tengig.mesh.checkin` / `tengig.lagg.checkin` confirm them. The countdown
goes to the job's progress.extra.checkin, which the panel shows beside its Confirm button."""
from __future__ import annotations

import errno
import threading
from collections.abc import Callable
from typing import Protocol

from ..checkin import CheckinGate
from ..errors import TengigError

_GATES: dict[str, CheckinGate] = {}
_LOCK = threading.Lock()


def gate_for(namespace: str) -> CheckinGate:
    with _LOCK:
        return _GATES.setdefault(namespace, CheckinGate())


class CheckinOptions(Protocol):
    """What an apply's options model (TenGigMeshApplyOptions, TenGigLaggApplyOptions) says about the wait."""

    wait_for_checkin: bool
    checkin_timeout: int


def waiter(job, namespace: str, options: CheckinOptions, cancel: threading.Event) -> Callable[[float], bool] | None:
    """await_checkin for an apply whose options ask for one (wait_for_checkin), else None: wait on the
    namespace's gate, telling the job the seconds left (of the options' checkin_timeout)."""
    if not options.wait_for_checkin:
        return None
    timeout = options.checkin_timeout

    def tell(waiting: bool, left: float) -> None:
        job.set_progress(extra={"checkin": {"waiting": waiting, "seconds_left": round(left), "timeout": timeout,
                                            "method": f"{namespace}.checkin"}})

    def await_checkin(seconds: float) -> bool:
        try:
            return gate_for(namespace).wait(seconds, cancel=cancel, tick=lambda left: tell(True, left))
        finally:
            tell(False, 0)
    return await_checkin


def confirm(namespace: str) -> bool:
    if not gate_for(namespace).confirm():
        raise TengigError(f"no {namespace}.apply is waiting for a confirmation (it was confirmed already, it "
                          "timed out and was taken back, or none was started with wait_for_checkin)",
                          errno=errno.ENOENT)
    return True
