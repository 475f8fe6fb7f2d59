"""Apply a network change to a TrueNAS so that a mistake undoes itself.

    result = apply_staged(backend, calls, probe, checkin_timeout=30)

1. Refuse when the TrueNAS already holds pending interface changes: they are someone else's (we have
   staged nothing yet), and a commit would apply them too.
2. Refuse a call that changes the interface this API session arrives on (interface.websocket_interface),
   unless ``confirm_session_interface``: the change could cut us off before we can check in.
3. If the saved config already is what the calls ask for, do nothing (``changed`` false): re-applying
   is idempotent.
4. Stage the interface calls (ports that all get new addresses are emptied first: TrueNAS checks each
   update against the others' saved addresses); ``interface.commit({"rollback": true, "checkin_timeout": N})``.
   An interface the calls create must then be in the kernel: TrueNAS's interface.sync logs a failure to
   create one (a LAGG on a kernel without a bonding driver) and goes on, and interface.query lists it only
   from its saved configuration (``fake``); that is rolled back at once and raised as NotCreated.
5. Run ``probe()`` ("do the new links answer?") until it succeeds or the time left before TrueNAS's own
   rollback runs out; then, when ``await_checkin`` is given, wait for a person to confirm
   (``await_checkin(seconds_left)`` returns True: the panel's Confirm arrived through the changed network;
   False: nobody confirmed in time, or an abort, and it is rolled back); then ``interface.checkin()``.
   On failure, ``interface.rollback()`` at once and raise StagedChangeFailed naming the links that did not
   answer. If this process dies in between, nobody checks in and TrueNAS rolls back by itself when the
   timeout ends.
6. network.configuration hosts is not staged by TrueNAS: it is written only after the checkin, with our
   lines rebased onto the current value (the user's lines kept), and put back as it was if that fails.

``cancel`` (anything with ``is_set()``) is honoured before the commit (staged edits are discarded) and
after it (rolled back). ``progress(percent, description)`` is told every step.
"""
from __future__ import annotations

import errno
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from ...checkin import NotConfirmed
from ...errors import Aborted, TengigError, ValidationError
from ...changes import ApiCall
from ...runner import CancelToken
from .backend import TrueNASBackend
from .desired import HOSTS_METHOD, INTERFACE_METHODS, call_holds, rebase_hosts, touched_interfaces

Progress = Callable[[float, str], Any]
# Time kept between the end of probing and TrueNAS's own rollback, for the checkin call to arrive.
MIN_CHECKIN_MARGIN_S = 0.3
MAX_CHECKIN_MARGIN_S = 5.0


class ProbeTarget(BaseModel):
    name: str = Field(description="What was probed, e.g. 'C01 enp3s0f0 -> desk 10.250.0.2'.")
    ok: bool = Field(description="It answered.")
    detail: str = Field("", description="What the probe saw (RTT, error text).")


class ProbeResult(BaseModel):
    ok: bool = Field(description="Every target answered.")
    targets: list[ProbeTarget] = Field(default_factory=list, description="Per-target outcome.")


class StagedChangeResult(BaseModel):
    changed: bool = Field(description="false: the TrueNAS already was as asked; nothing was staged.")
    staged_calls: int = Field(description="Interface calls staged and committed.")
    hosts_updated: bool = Field(description="network.configuration hosts was written after the checkin.")
    probe: ProbeResult | None = Field(description="The successful probe, or null when nothing was committed.")
    probe_attempts: int = Field(description="How many times the probe ran.")


class StagedChangeFailed(TengigError):
    """The committed change did not work and was rolled back; ``probe`` says which links did not answer."""

    errno = errno.EHOSTUNREACH

    def __init__(self, message: str, probe: ProbeResult | None):
        super().__init__(message)
        self.probe = probe


class NotCreated(StagedChangeFailed):
    """TrueNAS committed the change but could not make ``missing`` (interfaces it was to create) in the
    kernel; rolled back."""

    errno = errno.ENODEV

    def __init__(self, message: str, missing: list[str]):
        super().__init__(message, None)
        self.missing = missing


def _created_names(calls: Sequence[ApiCall]) -> list[str]:
    return [str(c.params[0]["name"]) for c in calls
            if c.method == "interface.create" and c.params and isinstance(c.params[0], dict) and c.params[0].get("name")]


def _check_created(backend: TrueNASBackend, names: Sequence[str], checkin_timeout: int) -> None:
    missing = [name for name in names if (entry := backend.interface(name)) is None or entry.get("fake")]
    if not missing:
        return
    back = ("tengig rolled it back (interface.rollback): the previous network configuration is back"
            if _rollback(backend) else f"interface.rollback failed too; TrueNAS rolls back by itself when the "
                                       f"{checkin_timeout} s checkin timeout ends")
    listed = ", ".join(missing)
    raise NotCreated(f"TrueNAS committed the change but could not create {listed} in the kernel: interface.query "
                     f"lists it only from TrueNAS's saved configuration (its interface.sync logs why, e.g. 'Error "
                     f"setting up LAG {missing[0]}' in /var/log/middlewared.log); {back}", missing)


def _aliases_cleared_first(calls: Sequence[ApiCall]) -> list[ApiCall]:
    """TrueNAS checks each staged interface.update against the other interfaces' saved configuration, so a
    plan that moves subnets between ports (a /30 mesh re-planned as /31, or back) is refused halfway
    through ("The network ... is already in use by another interface"). When two or more ports get new
    addresses, their aliases are emptied first, in the same staged change: one commit, one rollback."""
    readdressed = [c for c in calls if c.method == "interface.update" and len(c.params) > 1
                   and isinstance(c.params[1], dict) and "aliases" in c.params[1]]
    if len(readdressed) < 2:
        return list(calls)
    return [*(ApiCall(method="interface.update", params=[c.params[0], {"aliases": []}]) for c in readdressed), *calls]


def _check_calls(calls: Sequence[ApiCall]) -> None:
    problems = [(f"calls.{i}.method", f"{c.method} is not a network change apply_staged can make "
                 f"(allowed: {', '.join((*INTERFACE_METHODS, HOSTS_METHOD))})")
                for i, c in enumerate(calls) if c.method not in (*INTERFACE_METHODS, HOSTS_METHOD)]
    problems += [(f"calls.{i}.params.0", "network.configuration.update here takes only {'hosts': ...}")
                 for i, c in enumerate(calls)
                 if c.method == HOSTS_METHOD and (not c.params or set(c.params[0]) != {"hosts"})]
    if problems:
        raise ValidationError(problems)


def apply_staged(
    backend: TrueNASBackend,
    calls: Sequence[ApiCall],
    probe: Callable[[], ProbeResult],
    *,
    checkin_timeout: int,
    confirm_session_interface: bool = False,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    probe_interval: float = 0.5,
    await_checkin: Callable[[float], bool] | None = None,
) -> StagedChangeResult:
    tell = progress or (lambda percent, description: None)
    if checkin_timeout < 1:
        raise ValidationError.one("checkin_timeout", "must be at least 1 second: with 0 TrueNAS never rolls back")
    _check_calls(calls)
    interface_calls = [c for c in calls if c.method in INTERFACE_METHODS]
    hosts_calls = [c for c in calls if c.method == HOSTS_METHOD]

    tell(0, "Reading the TrueNAS's network state")
    if backend.has_pending_changes():
        left = backend.checkin_waiting()
        waiting = f" (committed, waiting {left} s for a checkin)" if left is not None else ""
        raise TengigError(
            f"the TrueNAS already has pending interface changes{waiting} that tengig did not make; finish or "
            "revert them first (Network page, or interface.checkin / interface.rollback), then apply again",
            errno=errno.EBUSY)
    session = backend.session_interface()
    for index, call in enumerate(calls):
        if call.method not in INTERFACE_METHODS or confirm_session_interface:
            continue
        if session is not None and session in touched_interfaces(call.method, call.params):
            raise ValidationError.one(
                "confirm_session_interface",
                f"calls.{index} ({call.method} {call.params[0] if call.params else ''}) changes "
                f"{session}, the interface this API session arrives on; it could cut this session off before "
                "the checkin. Set confirm_session_interface to go ahead (TrueNAS still rolls back without a checkin)")

    interfaces = {entry["name"]: entry for entry in backend.interfaces()}
    to_stage = [c for c in interface_calls if not call_holds(c.method, c.params, interfaces)]
    hosts_before = backend.hosts() if hosts_calls else None
    hosts_after = hosts_before
    for call in hosts_calls:
        hosts_after = rebase_hosts(call.params[0]["hosts"], hosts_after)
    hosts_change = hosts_calls and hosts_after != hosts_before
    if not to_stage and not hosts_change:
        tell(100, "Nothing to do: the TrueNAS already has this configuration")
        return StagedChangeResult(changed=False, staged_calls=0, hosts_updated=False, probe=None, probe_attempts=0)
    _abort_if(cancel, None)

    result_probe, attempts = None, 0
    if to_stage:
        tell(10, f"Staging {len(to_stage)} interface change(s)")
        try:
            for call in _aliases_cleared_first(to_stage):
                backend.call(call.method, *call.params)
                _abort_if(cancel, backend)
        except BaseException:
            _discard(backend)
            raise
        tell(30, f"Committing with a {checkin_timeout} s rollback timer")
        committed_at = time.monotonic()  # TrueNAS's timer starts no earlier than this
        backend.commit(rollback=True, checkin_timeout=checkin_timeout)
        _check_created(backend, _created_names(to_stage), checkin_timeout)
        margin = min(max(0.2 * checkin_timeout, MIN_CHECKIN_MARGIN_S), MAX_CHECKIN_MARGIN_S)
        deadline = committed_at + checkin_timeout - margin
        result_probe, attempts = _probe_until(backend, probe, deadline, checkin_timeout, probe_interval, tell, cancel)
        if await_checkin is not None:
            _wait_for_person(backend, await_checkin, deadline, checkin_timeout, tell, cancel)
        tell(85, "The new links answer: checking in")
        backend.checkin()
    if hosts_change:
        tell(90, "Writing the hosts entries")
        _write_hosts(backend, hosts_after, hosts_before)
    tell(100, "Applied")
    return StagedChangeResult(changed=True, staged_calls=len(to_stage), hosts_updated=bool(hosts_change),
                              probe=result_probe, probe_attempts=attempts)


def _wait_for_person(backend: TrueNASBackend, await_checkin: Callable[[float], bool], deadline: float,
                     checkin_timeout: int, tell: Progress, cancel: CancelToken | None) -> None:
    left = max(0.0, deadline - time.monotonic())
    tell(82, f"The new links answer: confirm within {left:.0f} s, or the change is rolled back")
    if await_checkin(left):
        return
    _abort_if(cancel, backend, committed=True)
    back = ("tengig rolled it back (interface.rollback): the previous network configuration is back"
            if _rollback(backend) else f"TrueNAS rolls it back by itself when the {checkin_timeout} s timer ends")
    raise NotConfirmed(f"nobody confirmed the change within {checkin_timeout} s (the panel's Confirm, or "
                       f"tengig.*.checkin); {back}. If the page could not reach the NAS any more, the change "
                       "would have cut you off")


def _probe_until(backend: TrueNASBackend, probe: Callable[[], ProbeResult], deadline: float, checkin_timeout: int,
                 interval: float, tell: Progress, cancel: CancelToken | None) -> tuple[ProbeResult, int]:
    started = time.monotonic()
    attempts, last = 0, None
    while True:
        _abort_if(cancel, backend, committed=True)
        attempts += 1
        try:
            last = probe()
        except Exception as exc:  # a probe that crashes is a link we cannot vouch for
            last = ProbeResult(ok=False, targets=[ProbeTarget(name="probe", ok=False, detail=f"{type(exc).__name__}: {exc}")])
        if last.ok:
            return last, attempts
        elapsed = time.monotonic() - started
        tell(40 + 40 * min(elapsed / max(deadline - started, 1e-3), 1.0), f"Waiting for the new links to answer (try {attempts})")
        if time.monotonic() + interval > deadline:
            break
        time.sleep(interval)
    rolled_back = _rollback(backend)
    silent = [t for t in last.targets if not t.ok] or [ProbeTarget(name="(probe gave no targets)", ok=False)]
    names = "; ".join(f"{t.name}" + (f" ({t.detail})" if t.detail else "") for t in silent)
    back = ("tengig rolled it back (interface.rollback): the previous network configuration is back"
            if rolled_back else f"interface.rollback failed too; TrueNAS rolls back by itself when the "
                                f"{checkin_timeout} s checkin timeout ends")
    raise StagedChangeFailed(
        f"after interface.commit, {names} did not answer within {time.monotonic() - started:.1f} s "
        f"({attempts} tries); {back}. Check the cables and the far ends' addresses, then apply again", last)


def _rollback(backend: TrueNASBackend) -> bool:
    try:
        backend.rollback()
        return True
    except TengigError:
        return False


def _discard(backend: TrueNASBackend) -> None:
    """Drop what we staged (a refused call, a cancel): interface.rollback restores the saved config."""
    try:
        if backend.has_pending_changes():
            backend.rollback()
    except TengigError:
        pass  # the original error is what the caller needs to see


def _abort_if(cancel: CancelToken | None, backend: TrueNASBackend | None, *, committed: bool = False) -> None:
    if cancel is None or not cancel.is_set():
        return
    if backend is not None:
        if committed:
            _rollback(backend)
        else:
            _discard(backend)
    undone = " and rolled back" if committed else (" and the staged edits discarded" if backend else "")
    raise Aborted(f"applying the network change was cancelled{undone}; the previous configuration stands")


def _write_hosts(backend: TrueNASBackend, value: str | list[str], previous: str | list[str] | None) -> None:
    try:
        backend.set_hosts(value)
    except TengigError as exc:
        restored = "was put back as it was"
        try:
            if previous is not None:
                backend.set_hosts(previous)
        except TengigError:
            restored = "could not be put back either (check network.configuration hosts)"
        raise TengigError(f"the interfaces are applied and checked in, but writing the hosts entries failed "
                          f"({exc}); the hosts list {restored}", errno=exc.errno) from exc
