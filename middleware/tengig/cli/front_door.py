"""The one front door of the commands: every `tengig mesh`, `tengig lagg` and `tengig nic` call goes to
tengig's own API hosted in this process (in_process.py), the services the panel and `tengig call` use, as
`tengig bench` and `tengig results` do. ``call``: one method that is not a job; ``run_job``: a job with its
progress bar, Ctrl-C aborting it (joined_host.run_hosted, bench/run/over_api.py). Either way an answer that
is an error comes out as tengig's own, one line, naming the command's flags instead of the API's fields."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..bench.run.over_api import run_over_api
from ..client.client import Client
from ..client.errors import ClientError
from ..errors import ValidationError
from .in_process import QUIET_PORT, in_process_api
from .joined_host import run_hosted
from .progress import ProgressBar

# API field -> the command's flag, which names that field and every field under it (options.hosts.0 ->
# --local). A key ending in "." keeps the rest: "request." -> "" says a field of a request file as the file
# spells it (hosts.0.ports), as the commands said it before they went through the API.
Flags = Mapping[str, str]
REQUEST_FILE: Flags = {"request": "--request", "request.": ""}


def flag_named(field: str, flags: Flags) -> str:
    """``field`` as the flag of the longest key of ``flags`` it is (or is under)."""
    if field in flags:
        return flags[field]
    keys = [api for api in flags if field.startswith(api if api.endswith(".") else api + ".")]
    if not keys:
        return field
    api = max(keys, key=len)
    return flags[api] + field.removeprefix(api) if api.endswith(".") else flags[api]


@contextlib.contextmanager
def said_with_flags(flags: Flags | None = None) -> Iterator[None]:
    """Inside: an API answer that is an error becomes tengig's own (ClientError.as_local), and a
    ValidationError names the command's flags (``flags``)."""
    try:
        yield
    except ClientError as exc:
        local = exc.as_local()
        if isinstance(local, ValidationError) and flags:
            raise ValidationError([(flag_named(f, flags), m) for f, m in local.errors]) from exc
        raise local from exc
    except ValidationError as exc:
        if not flags:
            raise
        raise ValidationError([(flag_named(f, flags), m) for f, m in exc.errors]) from exc


@contextlib.contextmanager
def front_door(flags: Flags | None = None) -> Iterator[Client]:
    """tengig's API hosted here for one command's calls (``call(..., api=api)``), its errors naming ``flags``."""
    with said_with_flags(flags), in_process_api() as api:
        yield api


def call(method: str, *params: Any, api: Client | None = None, flags: Flags | None = None) -> Any:
    """``method`` (not a job) with ``params``: on ``api``, one that ``front_door`` or ``hosted`` holds (they
    name the flags), else on an API hosted here for this one call, its errors naming ``flags``."""
    if api is None:
        with front_door(flags) as hosted_here:
            return hosted_here.call(method, *params)
    with said_with_flags():
        return api.call(method, *params)


def job(api: Client, method: str, request: dict[str, Any], options: dict[str, Any] | None, *,
        on_session: Callable[[dict[str, Any]], None] | None, bar: ProgressBar, cancel: threading.Event) -> Any:
    """The job ``method`` on ``api``, inside a run of run_hosted (its progress on ``bar``, ``cancel`` aborts
    it); field paths stay the API's (request.X, options.X), for ``said_with_flags`` to name."""
    return run_over_api(api, request, method=method, options=options, on_session=on_session, progress=bar,
                        cancel=cancel, field_prefix="")


# run(api, on_session, bar, cancel) -> what the command prints from
Run = Callable[[Client, Callable[[dict[str, Any]], None], ProgressBar, threading.Event], Any]


def hosted(run: Run, *, label: str, flags: Flags | None = None, port: int = QUIET_PORT, listen: bool = False,
           extra: str = "") -> Any:
    """``run`` against an API hosted here (listening on ``port`` for peers that join only when ``listen``),
    for a command that calls a job and more in the same API (``job`` and ``call(..., api=api)``)."""
    with said_with_flags(flags):
        return run_hosted(run, label=label, port=port, listen=listen, extra=extra)


def run_job(method: str, request: dict[str, Any], options: dict[str, Any] | None = None, *, label: str,
            flags: Flags | None = None) -> Any:
    """The job ``method`` on an API hosted here for it, no peer joining."""
    return hosted(lambda api, on_session, bar, cancel: job(api, method, request, options, on_session=on_session,
                                                           bar=bar, cancel=cancel), label=label, flags=flags)
