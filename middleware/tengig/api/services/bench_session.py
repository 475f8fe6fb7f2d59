"""tengig.bench.session: what a desktop that joined a benchmark run calls (bench/session.py).

A desktop logs in with the run's token (auth.login_ex, mechanism TOKEN_PLAIN); that session may call
these three methods and nothing else. ``join`` once, then ``next`` (waits up to ``wait`` s for an
instruction) and ``submit`` (a tool's raw output) until ``next`` says done or abort."""
from __future__ import annotations

import asyncio
import errno
import time
from typing import Any

from ...bench.session import JoinInfo, SessionEnded, Submission
from ..decorators import api_method
from ..exceptions import CallError, api_errors
from ..models.bench import (
    TenGigBenchSessionJoinArgs, TenGigBenchSessionJoinResult, TenGigBenchSessionNextArgs,
    TenGigBenchSessionNextResult, TenGigBenchSessionSubmitArgs, TenGigBenchSessionSubmitResult,
)
from ..service import Service

POLL_SECONDS = 0.05


def _session_of(app: Any):
    session = getattr(app, "bench_session", None)
    if session is None:
        raise CallError("log in with a bench session's token first (auth.login_ex, mechanism TOKEN_PLAIN)",
                        errno.EPERM)
    return session


def _client_of(app: Any):
    joined = getattr(app, "bench_client", None)
    if joined is None:
        raise CallError("join the bench session first (tengig.bench.session.join)", errno.EPERM)
    return joined


class TenGigBenchSessionService(Service):
    """The client's side of a benchmark run that desktops join over the network."""

    class Config:
        namespace = "tengig.bench.session"
        cli_namespace = "tengig.bench.session"

    @api_method(TenGigBenchSessionJoinArgs, TenGigBenchSessionJoinResult, authorization_required=False,
                pass_app=True)
    async def join(self, app: Any, info: dict[str, Any]) -> dict[str, Any]:
        """Join the run whose token this session logged in with."""
        session = _session_of(app)
        if getattr(app, "bench_client", None) is not None:
            raise CallError("this connection has already joined; one connection per desktop", errno.EEXIST)
        with api_errors(prefix="info"):
            try:
                client = session.join(JoinInfo(**info), peer=app.peer_address or "", local=app.local_address or "")
            except SessionEnded as exc:
                raise CallError(exc.message, errno.ESRCH) from exc
        app.bench_client = client
        return {"session": session.id, "name": client.name, "nas_address": client.local_address}

    @api_method(TenGigBenchSessionNextArgs, TenGigBenchSessionNextResult, authorization_required=False,
                pass_app=True)
    async def next(self, app: Any, wait: float = 10) -> dict[str, Any] | None:
        """The next thing to measure, waiting up to ``wait`` s; null: ask again."""
        session, client = _session_of(app), _client_of(app)
        deadline = time.monotonic() + wait
        while True:
            instruction = session.next(client)
            if instruction is not None or time.monotonic() >= deadline:
                return instruction.model_dump() if instruction else None
            await asyncio.sleep(POLL_SECONDS)

    @api_method(TenGigBenchSessionSubmitArgs, TenGigBenchSessionSubmitResult, authorization_required=False,
                pass_app=True)
    async def submit(self, app: Any, submission: dict[str, Any]) -> bool:
        """A tool's raw output for one instruction."""
        session, client = _session_of(app), _client_of(app)
        with api_errors(prefix="submission"):
            try:
                session.submit(client, Submission(**submission))
            except SessionEnded as exc:
                raise CallError(exc.message, errno.ESRCH) from exc
        return True


SERVICE = TenGigBenchSessionService
