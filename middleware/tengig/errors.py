"""The one error tree of tengig.

Every error says what failed, with what input, and what to do. Lower-level errors (OSError,
subprocess, JSON) are translated into these at one boundary with ``raise ... from exc``.

    TengigError
    +-- ValidationError        bad input; carries (field path, message) pairs, like TrueNAS's ValidationErrors
    +-- CommandError           an external program could not do its job
    |   +-- CommandNotFound    the program is not installed
    |   +-- CommandFailed      it exited non-zero (argv, exit code, stderr)
    |   +-- CommandTimeout     it ran past its timeout and was killed
    +-- LabError               the lab could not be built, inspected or torn down
    +-- ToolOutputError        a tool ran but its output says it did not do the work (e.g. iperf3 "error" key)
    +-- BenchRefused           a measurement that could not be honest is refused before it starts
    +-- Aborted                the caller cancelled the work (a job abort, Ctrl-C); what ran was stopped
    |   +-- Stopped            (desk/stop_signals) a desktop's part ended by a signal (SIGINT, SIGTERM, SIGHUP)
    +-- NotConfirmed           (checkin) a change nobody confirmed in time: it was rolled back
    +-- ClientError            (client/errors) what a TrueNAS or tengig API answered instead of a result
    +-- TrueNASError           (backends/truenas/caller) a call inside middlewared failed
    +-- StagedChangeFailed     (backends/truenas/staged_change) a committed change did not work: rolled back
    |   +-- NotCreated         TrueNAS committed it but could not make the interfaces in the kernel
    +-- BondUnsupported        (backends/linux/bond) this kernel has no bonding driver
    +-- ClientGone             (bench/join/session) a desktop left a run or did not answer in time
    +-- SessionEnded           (bench/join/session) a join or an answer for a run that has ended
    +-- JoinError              (desk/join) why a desktop's part in a run stopped, for its person
    +-- MountedCopyError       (desk/mounted_copy) a copy through a mounted share failed: where and why
    +-- VmLabError             (lab/vm/machines) the VM lab could not be built or booted
    +-- InstallError           (plugin_install/target) the plugin could not be installed or removed

Not in the tree, on purpose (each stays inside one layer and never reaches a user as itself):
    api/exceptions: CallError, ValidationErrors, JobAborted   middlewared's own exception types, mirrored so
                                                               the services raise what middlewared raises
    server/session: TooManyCalls; server/rpc: BadFrame        the wire protocol's refusals, sent as JSON-RPC errors
    runner: _Cancelled                                         the runner's private signal to stop a program
(tests/test_errors_tree.py fails on an exception class that is in neither list.)
"""
from __future__ import annotations

import errno as _errno
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

M = TypeVar("M")


class TengigError(Exception):
    """Base of every error tengig raises on purpose. ``errno`` maps to TrueNAS CallError errnos."""

    errno: int = _errno.EFAULT

    def __init__(self, message: str, *, errno: int | None = None):
        super().__init__(message)
        self.message = message
        if errno is not None:
            self.errno = errno


class ValidationError(TengigError):
    """Bad input. ``errors`` is a list of (field path, message) like TrueNAS's ``extra``."""

    errno = _errno.EINVAL

    def __init__(self, errors: Sequence[tuple[str, str]] | str, message: str | None = None):
        if isinstance(errors, str):
            raise TypeError("ValidationError needs (field, message) pairs; use ValidationError.one()")
        self.errors = [(str(f), str(m)) for f, m in errors]
        if not self.errors:
            raise ValueError("ValidationError needs at least one (field, message) pair")
        text = message or "; ".join(f"{f}: {m}" for f, m in self.errors)
        super().__init__(text)

    @classmethod
    def one(cls, field: str, message: str) -> "ValidationError":
        return cls([(field, message)])

    @classmethod
    def from_pydantic(cls, exc: Any, *, empty_path: str = "") -> "ValidationError":
        """pydantic's ValidationError as (dotted field path, message) pairs: ('hosts', 1, 'ports') ->
        'hosts.1.ports'; an error about the whole input gets ``empty_path``."""
        return cls([(".".join(str(p) for p in e["loc"]) or empty_path, e["msg"]) for e in exc.errors()])


def parse_model(model: type[M], value: M | Mapping[str, Any], *, empty_path: str = "") -> M:
    """``value`` as ``model``: an instance passes through, plain data is validated, and pydantic's errors
    become a ValidationError with dotted field paths (an error about the whole input gets ``empty_path``)."""
    from pydantic import ValidationError as PydanticError

    if isinstance(value, model):
        return value
    try:
        return model.model_validate(value)
    except PydanticError as exc:
        raise ValidationError.from_pydantic(exc, empty_path=empty_path) from exc


class CommandError(TengigError):
    """An external program did not do its job. Carries the exact argv that ran."""

    def __init__(self, message: str, *, argv: Sequence[str], errno: int | None = None):
        self.argv = list(argv)
        super().__init__(message, errno=errno)

    @property
    def command(self) -> str:
        """The argv as a copy-pastable string, for messages only (never executed)."""
        return shlex.join(self.argv)


class CommandNotFound(CommandError):
    errno = _errno.ENOENT

    def __init__(self, argv: Sequence[str]):
        super().__init__(
            f"{argv[0]!r} is not installed or not on PATH (needed for: {shlex.join(argv)}); "
            "run `make setup` to install tengig's tools",
            argv=argv,
        )


class CommandFailed(CommandError):
    def __init__(self, argv: Sequence[str], returncode: int, stdout: str, stderr: str):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        tail = (stderr.strip() or stdout.strip())[-800:] or "(no output)"
        super().__init__(f"`{shlex.join(argv)}` exited with {returncode}: {tail}", argv=argv)


class CommandTimeout(CommandError):
    errno = _errno.ETIMEDOUT

    def __init__(self, argv: Sequence[str], timeout: float, stdout: str = "", stderr: str = "", held: str = ""):
        """``held``: what still held its output after the KILL (the runner stopped waiting for it)."""
        self.timeout = timeout
        self.stdout = stdout
        self.stderr = stderr
        super().__init__(f"`{shlex.join(argv)}` did not finish within {timeout:g} s and was killed"
                         + (f"; {held}" if held else ""), argv=argv)


class LabError(TengigError):
    """The lab could not be built, inspected or torn down."""


class ToolOutputError(TengigError):
    """A tool ran, but its own output says the work was not done (or cannot be trusted)."""

    errno = _errno.EIO


class BenchRefused(TengigError):
    """A benchmark would not measure what it claims (e.g. the cache would serve the reads, or the pool
    would fill past 80%), so it is refused with the reason and what to change."""

    errno = _errno.ENOSPC


class Aborted(TengigError):
    """The work was cancelled on request; any program it ran was stopped."""

    errno = _errno.ECANCELED
