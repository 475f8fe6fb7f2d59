"""The one way tengig runs an external program.

argv lists only (never a shell, never a command string), a timeout on every call, an optional
network namespace, and typed errors (tengig.errors) that carry the argv, the exit code and stderr. A
timeout, a cancel or an interruption kills the program's whole tree (process_tree.py), wherever its session.
The seam is :class:`Runner`: tests and backends can swap it for one that records or refuses.
"""
from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .errors import Aborted, CommandFailed, CommandNotFound, CommandTimeout
from .process_tree import kill_tree

NETNS_RUN_DIR = Path("/run/netns")
CANCEL_POLL_S = 0.1
KILLED_WAIT_S = 10.0  # after a timeout's or a cancel's KILL, the longest a run waits for the program's pipes


class CancelToken(Protocol):
    """Anything with ``is_set()`` (a threading.Event): set it and running programs are killed."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class Completed:
    """What a finished program left: its argv, exit code, output and wall time in seconds."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def _check_argv(argv: Sequence[str]) -> list[str]:
    if isinstance(argv, (str, bytes)):
        raise TypeError("argv must be a list of arguments, not a string: tengig never runs a shell")
    out = list(argv)
    if not out:
        raise ValueError("argv is empty")
    for arg in out:
        if not isinstance(arg, str):
            raise TypeError(f"argv items must be str, got {type(arg).__name__}: {arg!r}")
        if "\x00" in arg:
            raise ValueError(f"argv item contains a NUL byte: {arg!r}")
    return out


def in_netns(argv: Sequence[str], netns: str | None, *, mode: str = "exec") -> list[str]:
    """Wrap argv to run inside a network namespace.

    mode "exec": `ip netns exec NS ...` (also applies /etc/netns/NS/hosts, the lab's name resolution);
    mode "nsenter": `nsenter --net=/run/netns/NS ...` (stays in the caller's mount namespace, for FUSE
    mounts that must be visible to everyone; names do not resolve through /etc/netns there).
    """
    argv = _check_argv(argv)
    if netns is None:
        return argv
    if mode == "exec":
        return ["ip", "netns", "exec", netns, *argv]
    if mode == "nsenter":
        return ["nsenter", f"--net={NETNS_RUN_DIR / netns}", "--", *argv]
    raise ValueError(f"unknown netns mode {mode!r}")


class Runner:
    """Runs programs. One instance can carry default environment additions (e.g. the lab's marker)."""

    def __init__(self, extra_env: Mapping[str, str] | None = None):
        self.extra_env = dict(extra_env or {})

    def environment(self) -> dict[str, str] | None:
        """The environment programs get (None: this process's own)."""
        return self._env(None)

    def _env(self, env: Mapping[str, str] | None) -> dict[str, str] | None:
        if not self.extra_env and env is None:
            return None
        merged = dict(os.environ)
        merged.update(self.extra_env)
        if env:
            merged.update(env)
        return merged

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        netns: str | None = None,
        netns_mode: str = "exec",
        input: str | bytes | None = None,
        check: bool = True,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike | None = None,
        cancel: CancelToken | None = None,
    ) -> Completed:
        """Run argv to completion. Raises CommandNotFound / CommandTimeout, and CommandFailed if check.
        With ``cancel``, the program's whole tree is killed soon after the token is set, and Aborted is
        raised."""
        if timeout is None or timeout <= 0:
            raise ValueError("every command needs a positive timeout")
        full = in_netns(argv, netns, mode=netns_mode)
        text = not isinstance(input, bytes)
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                full,
                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env(env),
                cwd=cwd,
                text=text,
                errors="replace" if text else None,
                start_new_session=True,  # a child that signals its process group cannot hit us
            )
        except FileNotFoundError as exc:
            raise CommandNotFound(full) from exc
        try:
            out, err = _communicate(proc, input, timeout, started, cancel)
        except subprocess.TimeoutExpired:
            kill_tree(proc.pid)
            out, err, held = _after_kill(proc)
            raise CommandTimeout(full, timeout, _text(out), _text(err), held=held) from None
        except _Cancelled:
            kill_tree(proc.pid)
            _after_kill(proc)
            raise Aborted(f"cancelled: `{' '.join(full[:6])}...` was stopped") from None
        except BaseException:  # interrupted (Ctrl-C, a signal's exception): the program, in its own session, too
            kill_tree(proc.pid)
            try:
                proc.wait(timeout=KILLED_WAIT_S)
            except subprocess.TimeoutExpired:
                pass  # stuck in the kernel: the interruption goes on
            raise
        seconds = time.monotonic() - started
        done = Completed(tuple(full), proc.returncode, _text(out), _text(err), seconds)
        if check and proc.returncode != 0:
            if proc.returncode == 127 and netns is not None and "No such file" in done.stderr:
                raise CommandNotFound(list(argv))
            raise CommandFailed(full, proc.returncode, done.stdout, done.stderr)
        return done

    def spawn(
        self,
        argv: Sequence[str],
        *,
        log_path: str | os.PathLike,
        netns: str | None = None,
        netns_mode: str = "exec",
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike | None = None,
        stdin_pipe: bool = False,
        stdout_pipe: bool = False,
    ) -> subprocess.Popen:
        """Start a long-running program in its own session (it cannot signal our process group),
        stdout and stderr appended to log_path. The caller owns the process and must stop it.
        ``stdin_pipe`` gives the caller a text pipe to talk to it (an interactive client);
        ``stdout_pipe`` one to read what it prints (a server's report; its stderr still goes to the log)."""
        full = in_netns(argv, netns, mode=netns_mode)
        log = open(log_path, "ab")
        try:
            return subprocess.Popen(
                full,
                stdin=subprocess.PIPE if stdin_pipe else subprocess.DEVNULL,
                stdout=subprocess.PIPE if stdout_pipe else log,
                stderr=log if stdout_pipe else subprocess.STDOUT,
                env=self._env(env),
                cwd=cwd,
                start_new_session=True,
                text=stdin_pipe or stdout_pipe or None,
            )
        except FileNotFoundError as exc:
            raise CommandNotFound(full) from exc
        finally:
            log.close()


class _Cancelled(Exception):
    pass


def _communicate(proc: subprocess.Popen, input, timeout: float, started: float, cancel: CancelToken | None):
    if cancel is None:
        return proc.communicate(input=input, timeout=timeout)
    # communicate() may be called again after a TimeoutExpired (documented): poll the token between.
    pending = input
    while True:
        if cancel.is_set():
            raise _Cancelled()
        left = timeout - (time.monotonic() - started)
        if left <= 0:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        try:
            return proc.communicate(input=pending, timeout=min(CANCEL_POLL_S, left))
        except subprocess.TimeoutExpired:
            pending = None  # the input was written on the first call


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data


def _after_kill(proc: subprocess.Popen) -> tuple[str | bytes | None, str | bytes | None, str]:
    """What the program printed once its tree was killed, waiting at most KILLED_WAIT_S: a program stuck in
    the kernel (on a filesystem that no longer answers) or a helper out of the tree's reach (its parent ended
    before the KILL) can hold the pipes for ever, and a run must not wait for that. Then the pipes are
    closed, what it printed until then is kept (the timeout carries every byte read, over both calls to
    communicate), and the third item says what holds them (empty when all ended)."""
    try:
        out, err = proc.communicate(timeout=KILLED_WAIT_S)
        return out, err, ""
    except subprocess.TimeoutExpired as timed_out:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        state = "still running" if proc.poll() is None else f"ended ({proc.returncode}), a process it started is not"
        held = f"{KILLED_WAIT_S:g} s after its KILL it was {state}: left behind (PID {proc.pid})"
        return timed_out.output, timed_out.stderr, held


default_runner = Runner()
run = default_runner.run
