"""tengig.bench.session: what a desktop that joined a benchmark run calls (bench/join/session.py).

The same protocol under tengig's own host and inside middlewared (the plugin): no login. A desktop
connects and calls ``join`` with the run's token, which finds that run and nothing else; the
connection may then call ``next`` (waits up to ``wait`` s for an instruction) and ``submit`` (a tool's
raw output, in parts when it is long) until ``next`` says done or abort. A connection that has not
logged in may send messages of at most 8 KiB on both hosts; no other method opens to it.

``app`` is the calling connection as its host hands it over: ``peer_address`` and ``local_address``
(the addresses of the TCP connection; the local one may be a proxy's), ``on_close(callback)``, and
room for the two attributes set here (tengig's server Session; the plugin's adapter of middlewared's).
"""
from __future__ import annotations

import asyncio
import errno
import time
from typing import Any

from ...bench.phases.nas_port import proxied
from ...bench.join.session import SESSIONS, SessionEnded
from ...join_protocol.messages import JoinInfo, Submission
from ...join_protocol.naming import token_label
from ..decorators import api_method
from ..exceptions import CallError, api_errors
from ..models.bench import (
    TenGigBenchSessionJoinArgs, TenGigBenchSessionJoinResult, TenGigBenchSessionNextArgs,
    TenGigBenchSessionNextResult, TenGigBenchSessionSubmitArgs, TenGigBenchSessionSubmitResult,
)
from ..service import Service

POLL_SECONDS = 0.05
REFUSED = ("the NAS refused the token: it is mistyped, or its run ended more than an hour ago; copy the join "
           "command of a run that is waiting for clients")


def _joined(app: Any):
    joined = getattr(app, "bench_client", None)
    if joined is None:
        raise CallError("join a bench session first (tengig.bench.session.join with the run's token)", errno.EPERM)
    return app.bench_session, joined


class TenGigBenchSessionService(Service):
    """The client's side of a benchmark run that desktops join over the network."""

    class Config:
        namespace = "tengig.bench.session"
        cli_namespace = "tengig.bench.session"

    async def _find(self, app: Any, token: str):
        """The run ``token`` belongs to, or None. Under tengig's host (server/login_gate.py) a token whose
        public label names a run kept here is compared at once the first time from an address, so one
        client's wrong tokens never hold up another's right one; after a wrong secret for that run, or with
        a label that names no run, it waits its turn in the address's back-off, so guessing is as slow as
        it always was. Under middlewared, its own rate limit of unauthenticated calls per address applies."""
        gate = getattr(self.middleware, "login_gate", None)
        if gate is None:
            return SESSIONS.by_token(token)
        source = getattr(app, "source", None) or app.peer_address or ""
        if not SESSIONS.knows_label(token):
            await gate.failed(source)
            return None
        return await gate.check(source, ("join", token_label(token)), SESSIONS.by_token, token)

    @api_method(TenGigBenchSessionJoinArgs, TenGigBenchSessionJoinResult, authentication_required=False,
                pass_app=True)
    async def join(self, app: Any, token: str, info: dict[str, Any]) -> dict[str, Any]:
        """Join the run the token belongs to; this connection is then that desktop in the run."""
        if getattr(app, "bench_client", None) is not None:
            raise CallError("this connection has already joined; one connection per desktop", errno.EEXIST)
        session = await self._find(app, token)
        if session is None:
            raise CallError(REFUSED, errno.EACCES)
        with api_errors(prefix="info"):
            try:
                client = session.join(JoinInfo(**info), peer=app.peer_address or "", local=app.local_address or "")
            except SessionEnded as exc:
                raise CallError(exc.message, errno.ESRCH) from exc
        app.bench_session, app.bench_client = session, client
        app.on_close(lambda: session.gone(client, "its connection closed"))
        # behind a proxy (TrueNAS's nginx) the local address is the proxy's: the run finds the link by route
        shown = "" if proxied(client.local_address, client.peer_address) else client.local_address
        return {"session": session.id, "name": client.name, "nas_address": shown}

    @api_method(TenGigBenchSessionNextArgs, TenGigBenchSessionNextResult, authentication_required=False,
                pass_app=True, rate_limit=False)
    async def next(self, app: Any, wait: float = 10) -> dict[str, Any] | None:
        """The next thing to measure, waiting up to ``wait`` s; null: ask again."""
        session, client = _joined(app)
        deadline = time.monotonic() + wait
        while True:
            instruction = session.next(client)
            if instruction is not None or time.monotonic() >= deadline:
                return instruction.model_dump() if instruction else None
            await asyncio.sleep(POLL_SECONDS)

    @api_method(TenGigBenchSessionSubmitArgs, TenGigBenchSessionSubmitResult, authentication_required=False,
                pass_app=True, rate_limit=False)
    async def submit(self, app: Any, submission: dict[str, Any]) -> bool:
        """A tool's raw output for one instruction, or one part of it (``more``)."""
        session, client = _joined(app)
        with api_errors(prefix="submission"):
            try:
                session.submit(client, Submission(**submission))
            except SessionEnded as exc:
                raise CallError(exc.message, errno.ESRCH) from exc
        return True


SERVICE = TenGigBenchSessionService
