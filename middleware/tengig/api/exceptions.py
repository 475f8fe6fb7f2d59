"""The errors an API method raises, shaped like middlewared's, and the one place where tengig's own
error tree (tengig.errors) is translated into them.

    CallError          -> JSON-RPC -32001 "Method call error" with data.error = errno
    ValidationErrors   -> JSON-RPC -32602 "Invalid params" with data.extra = [[field, message, errno], ...]
    JobAborted         a job body stops because core.job_abort asked it to (the job ends ABORTED)

The attribute names (errmsg, errno, extra; ValidationErrors iterating (attribute, errmsg, errno)) are
middlewared's, so the middlewared plugin wrapper can re-raise them as middlewared's classes 1:1.
"""
from __future__ import annotations

import errno as _errno
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from .. import errors as tengig_errors

# middlewared's own errnos (truenas_api_client.ErrnoMixin): clients compare these numbers.
ENOMETHOD = 201
ENOTAUTHENTICATED = 207
_CUSTOM_ERRNAMES = {ENOMETHOD: "ENOMETHOD", ENOTAUTHENTICATED: "ENOTAUTHENTICATED"}


def errname(code: int | None) -> str:
    """'EINVAL' for 22, 'ENOTAUTHENTICATED' for 207, 'EUNKNOWN' otherwise (as middlewared names them)."""
    if code is None:
        return "EUNKNOWN"
    return _errno.errorcode.get(code) or _CUSTOM_ERRNAMES.get(code) or "EUNKNOWN"


class CallError(Exception):
    """A method could not do what was asked; ``errno`` says why in one number."""

    def __init__(self, errmsg: str, errno: int = _errno.EFAULT, extra: object = None):
        super().__init__(errmsg)
        self.errmsg = errmsg
        self.errno = errno
        self.extra = extra

    def __str__(self) -> str:
        return f"[{errname(self.errno)}] {self.errmsg}"


class ValidationErrors(Exception):
    """Bad input, one (field path, message, errno) per problem. Field paths start with the argument's
    name, as middlewared writes them: ``options.seconds``, ``target.name``, ``filters.0``."""

    def __init__(self, errors: Iterable[tuple[str, str, int] | tuple[str, str]] = ()):
        self.errors: list[tuple[str, str, int]] = []
        for error in errors:
            self.add(*error)
        super().__init__(self.errors)

    def add(self, attribute: str, errmsg: str, errno: int = _errno.EINVAL) -> None:
        self.errors.append((str(attribute), str(errmsg), int(errno)))

    def __iter__(self) -> Iterator[tuple[str, str, int]]:
        return iter(self.errors)

    def __bool__(self) -> bool:
        return bool(self.errors)

    def __str__(self) -> str:
        return "\n".join(f"[{errname(code)}] {attribute}: {message}" for attribute, message, code in self.errors)

    @classmethod
    def one(cls, attribute: str, errmsg: str, errno: int = _errno.EINVAL) -> "ValidationErrors":
        return cls([(attribute, errmsg, errno)])


class JobAborted(Exception):
    """Raised by ``job.check_aborted()`` inside a job body; the job then ends ABORTED, not FAILED."""


def translate(exc: BaseException, *, prefix: str | None = None) -> CallError | ValidationErrors | None:
    """tengig's own errors as API errors; None for anything else (a bug: the host answers -32603).

    ``prefix`` puts the argument name in front of a ValidationError's field paths, so an error the
    store raises on 'limit' reaches the caller as 'options.limit' (a path in what they sent)."""
    if isinstance(exc, (CallError, ValidationErrors)):
        return exc
    if isinstance(exc, tengig_errors.ValidationError):
        return ValidationErrors(
            (_join(prefix, field), message, exc.errno) for field, message in exc.errors
        )
    if isinstance(exc, tengig_errors.TengigError):
        return CallError(exc.message, exc.errno)
    return None


@contextmanager
def api_errors(prefix: str | None = None) -> Iterator[None]:
    """Inside a service method: let tengig's errors out as API errors, field paths under ``prefix``."""
    try:
        yield
    except tengig_errors.TengigError as exc:
        raise translate(exc, prefix=prefix) from exc


def _join(prefix: str | None, field: str) -> str:
    if not prefix or field == prefix or field.startswith(prefix + "."):
        return field
    return f"{prefix}.{field}" if field else prefix
