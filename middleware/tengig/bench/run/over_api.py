"""A benchmark run as a job of a tengig API host, driven by a client as if it were local work: progress
and live samples passed on, the run's join session handed over once it waits for desktops, an abort
passed down, and a failure raised as tengig's own error. `tengig bench` drives its own in-process host
this way; system 'lab' drives tengig on the lab's nas."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ...client.client import Client
from ...client.errors import ClientError

Progress = Callable[[float, str], None]
Live = Callable[[dict[str, Any]], None]
RUN_TIMEOUT = 24 * 3600


def run_over_api(api: Client, request: dict[str, Any], *, on_session: Callable[[dict[str, Any]], None] | None = None,
                 progress: Progress | None = None, cancel: threading.Event | None = None,
                 live: Live | None = None, method: str = "tengig.bench.run", options: dict[str, Any] | None = None,
                 field_prefix: str = "request.") -> dict[str, Any]:
    """``method`` (tengig.bench.run; a verify that desktops join: tengig.lagg.verify, tengig.mesh.verify,
    with its ``options``) with ``request`` on ``api``; field paths lose ``field_prefix``. ``on_session(session)``: once, when the run shows its
    join session ({id, token, expected, ...}). ``cancel``: set, the run is aborted there (it cleans up
    itself). Returns the job's result; raises what it failed with (Aborted, ValidationError with the
    request's field names, or TengigError with the host's reason)."""
    state: dict[str, Any] = {"job": None, "session": None}
    finished = threading.Event()

    def on_event(job: dict[str, Any]) -> None:
        state["job"] = job.get("id", state["job"])
        shown = job.get("progress") or {}
        extra = shown.get("extra") if isinstance(shown.get("extra"), dict) else {}
        session = extra.get("session")
        if session and state["session"] is None:
            state["session"] = session
            if on_session:
                on_session(session)
        if progress and (shown.get("percent") or shown.get("description")):  # not the job's empty start
            progress(shown.get("percent") or 0, shown.get("description") or "")
        if live and extra and not session:
            live(extra)

    def abort_on_cancel() -> None:
        while not finished.is_set():
            if cancel.wait(0.2):
                if state["job"] is not None:  # else: the job's first event is on its way
                    api.call("core.job_abort", state["job"])
                    return
                finished.wait(0.05)

    if cancel is not None:
        threading.Thread(target=abort_on_cancel, name="tengig-run-abort", daemon=True).start()
    try:
        params = (request,) if options is None else (request, options)
        return api.call(method, *params, job=True, callback=on_event, timeout=RUN_TIMEOUT)
    except ClientError as exc:
        raise exc.as_local(field_prefix) from exc
    finally:
        finished.set()
