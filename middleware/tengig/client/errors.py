"""ClientError: what the server answered instead of a result, with everything it said."""
from __future__ import annotations

import errno as _errno
import re
from typing import Any

from ..errors import Aborted, TengigError, ValidationError

INVALID_PARAMS = -32602
CALL_ERROR = -32001
ERRNO_TAG = re.compile(r"^\[E[A-Z0-9]+\] ")


class ClientError(TengigError):
    """``code`` is the JSON-RPC error code (None: a client-side failure such as a timeout),
    ``errno``/``errname`` the server's errno, ``extra`` the [field, message, errno] list of a
    validation error (code -32602)."""

    def __init__(self, message: str, *, code: int | None = None, errno: int | None = None,
                 errname: str | None = None, extra: Any = None, method: str | None = None):
        super().__init__(message, errno=errno)
        self.code = code
        self.errname = errname
        self.extra = extra
        self.method = method

    @property
    def field_errors(self) -> list[tuple[str, str]]:
        """(field path, message) pairs of a validation error; [] otherwise."""
        if self.code != INVALID_PARAMS or not isinstance(self.extra, list):
            return []
        return [(str(item[0]), str(item[1])) for item in self.extra if isinstance(item, list) and len(item) >= 2]

    @property
    def reason(self) -> str:
        """What the server said, without the method and errno tags of the wire."""
        message = self.message.removeprefix(f"{self.method}: ") if self.method else self.message
        return ERRNO_TAG.sub("", message)

    def as_local(self, field_prefix: str = "") -> TengigError:
        """This answer as tengig's own error, for a caller that runs a job of another tengig as its own
        work: Aborted; ValidationError (field paths without ``field_prefix``); else the server's reason
        with its errno."""
        if self.errno == _errno.ECANCELED:
            return Aborted(self.reason)
        if self.field_errors:
            return ValidationError([(f.removeprefix(field_prefix), m) for f, m in self.field_errors])
        return TengigError(self.reason, errno=self.errno)

    @classmethod
    def from_error(cls, error: dict[str, Any], method: str | None = None) -> "ClientError":
        data = error.get("data") or {}
        reason = data.get("reason") or error.get("message") or "error"
        prefix = f"{method}: " if method else ""
        return cls(f"{prefix}{reason}", code=error.get("code"), errno=data.get("error"),
                   errname=data.get("errname"), extra=data.get("extra"), method=method)

    @classmethod
    def from_job(cls, fields: dict[str, Any]) -> "ClientError":
        info = fields.get("exc_info") or {}
        if fields.get("state") == "ABORTED":
            return cls(f"job {fields.get('id')} ({fields.get('method')}) was aborted", errno=125, errname="ECANCELED")
        validation = info.get("type") == "VALIDATION"
        return cls(fields.get("error") or "job failed", code=INVALID_PARAMS if validation else CALL_ERROR,
                   errno=info.get("errno") or (22 if validation else None), extra=info.get("extra"),
                   method=fields.get("method"))
