"""The seam between the TrueNAS backend and whatever carries its calls, and the one place where what
TrueNAS answers instead of a result becomes a tengig error.

A ``Caller`` is anything with ``call(method, *params, job=False)``:
  - from outside TrueNAS: ``tengig.client.Client`` (JSON-RPC 2.0 or legacy; ``client.connect``);
  - inside the middlewared plugin: ``MiddlewareCaller(self.middleware)`` (``call_sync``);
  - in tests: a stand-in's Client, or a recording fake.

Errors (``translate``):
  - a validation refusal (ClientError -32602 with ``extra``, or middlewared's ValidationErrors) ->
    tengig ValidationError keeping TrueNAS's own field paths (``interface_create.lag_ports.0``);
  - anything else TrueNAS refused (ClientError -32001, middlewared's CallError) -> TrueNASError with
    the method and TrueNAS's errno;
  - tengig's own errors (a timeout, a closed connection) pass through as they are.
"""
from __future__ import annotations

import errno as _errno
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from ...client.errors import ClientError
from ...errors import TengigError, ValidationError


class Caller(Protocol):
    def call(self, method: str, *params: Any, job: bool = False) -> Any: ...


# The TrueNAS tengig runs on: middlewared's unix socket, where root is logged in by its credentials.
THIS_TRUENAS = "ws+unix:///var/run/middleware/middlewared.sock"


class PerCallCaller:
    """A Caller that opens a connection for each call (``open_client()``, a tengig Client) and closes it:
    for the few calls of a benchmark's scratch dataset and share, with nothing left open between runs."""

    def __init__(self, open_client: Callable[[], Any]):
        self.open_client = open_client

    def call(self, method: str, *params: Any, job: bool = False) -> Any:
        with self.open_client() as client:
            return client.call(method, *params, job=job)


class TrueNASError(TengigError):
    """TrueNAS refused a call for a reason other than bad input (``errno`` is TrueNAS's)."""

    def __init__(self, message: str, *, method: str, errno: int | None = None):
        self.method = method
        super().__init__(message, errno=errno or _errno.EIO)


class MiddlewareCaller:
    """Inside middlewared (a plugin's sync method, in a worker thread): calls through ``call_sync``; a
    job method's Job is waited for (``wait_sync(raise_error=True)`` returns its result). ``app``: the
    connection of whoever called tengig, handed to methods that take one (interface.websocket_interface
    then names the interface that person arrives on); None for a call with no caller."""

    def __init__(self, middleware: Any, app: Any = None):
        self.middleware = middleware
        self.app = app

    def call(self, method: str, *params: Any, job: bool = False) -> Any:
        answer = (self.middleware.call_sync(method, *params) if self.app is None
                  else self.middleware.call_sync(method, *params, app=self.app))
        if job and hasattr(answer, "wait_sync"):
            return answer.wait_sync(raise_error=True)
        return answer


def translate(exc: BaseException, method: str) -> TengigError | None:
    """``exc`` as a tengig error, or None when it is not something TrueNAS answered."""
    if isinstance(exc, ClientError):
        if exc.field_errors:
            return ValidationError(exc.field_errors, f"TrueNAS refused {method}: "
                                   + "; ".join(f"{f}: {m}" for f, m in exc.field_errors))
        if exc.code is None:  # client-side: timeout, connection closed; already says what happened
            return exc
        return TrueNASError(str(exc) if str(exc).startswith(method) else f"{method}: {exc}", method=method,
                            errno=exc.errno)
    if isinstance(exc, TengigError):
        return exc
    # middlewared's own classes, recognised by shape so nothing here imports middlewared.
    items = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationErrors" and isinstance(items, list):
        pairs = [(str(getattr(e, "attribute", "")), str(getattr(e, "errmsg", e))) for e in items]
        if pairs:
            return ValidationError(pairs, f"TrueNAS refused {method}: " + "; ".join(f"{f}: {m}" for f, m in pairs))
    if hasattr(exc, "errmsg") and hasattr(exc, "errno"):
        return TrueNASError(f"{method}: {exc.errmsg}", method=method, errno=exc.errno)
    return None


@contextmanager
def truenas_errors(method: str) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        translated = translate(exc, method)
        if translated is None or translated is exc:
            raise
        raise translated from exc
