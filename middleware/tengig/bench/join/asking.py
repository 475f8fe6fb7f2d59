"""One instruction to a joined desktop, its answer waited for and recorded in the run's raw outputs."""
from __future__ import annotations

import time

from ...results.models import RawOutput
from ..context import BenchContext
from ...join_protocol.messages import Submission
from .session import BenchSession, JoinedClient


def record(ctx: BenchContext, client: JoinedClient, tool: str, sub: Submission, started: float) -> None:
    ctx.raw.append(RawOutput(tool=f"{tool} on {client.name}", argv=sub.argv, exit_code=sub.exit_code,
                             stdout=sub.stdout, stderr=sub.stderr, started=started, seconds=sub.seconds))


def ask(ctx: BenchContext, session: BenchSession, client: JoinedClient, kind: str, params: dict,
        *, timeout: float, tool: str) -> Submission:
    return asked(ctx, session, client, kind, params, timeout=timeout, tool=tool)[1]


def asked(ctx: BenchContext, session: BenchSession, client: JoinedClient, kind: str, params: dict,
          *, timeout: float, tool: str) -> tuple[int, Submission]:
    """One instruction to ``client``, its answer waited for and recorded -> (instruction, answer)."""
    ctx.check_cancel()
    started = time.time()
    instruction = session.post(client, kind, params)
    sub = session.wait_result(client, instruction, timeout=timeout, cancel=ctx.cancel)
    record(ctx, client, tool, sub, started)
    return instruction, sub
