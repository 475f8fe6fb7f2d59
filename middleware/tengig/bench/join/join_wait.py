"""Desktops joining a run, from the NAS's side: a bench session opened, its join command shown in the
job's progress (the token in ``progress.extra.session``, as the panel reads it), the desktops waited
for, and the session ended however the run ends. The suite (suite_joined.py) and the LAGG and mesh
verifies (lagg/joined.py, mesh/joined.py) all wait for their desktops so."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from ..context import BenchContext
from .session import SESSIONS, BenchSession, JoinedClient


def announce(ctx: BenchContext, session: BenchSession, token: str
             ) -> Callable[[list[JoinedClient], float], None]:
    """What a run waiting for its desktops says: the join command, who joined, and the seconds left (said
    again every few seconds, so whoever watches the job from any moment on sees the command)."""
    def show(clients: list[JoinedClient], left_s: float) -> None:
        ctx.sample(phase="waiting for clients", session={
            "id": session.id, "token": token, "expected": session.expected,
            "joined": [c.describe() for c in clients]})
        ctx.report(0, f"waiting for {session.expected - len(clients)} of {session.expected} client(s) to join "
                   f"(tengig client join URL --token {token}); {left_s:.0f} s left")
    return show


@contextlib.contextmanager
def joined_session(ctx: BenchContext, expected: int, *, join_timeout: float
                   ) -> Iterator[tuple[BenchSession, list[JoinedClient]]]:
    """A session that ``expected`` desktops joined (ValidationError ``join`` out of 1..16; ClientGone when
    they did not all join within ``join_timeout`` s). The session ends with the block: "finished", or
    why the run stopped (each desktop hears it at its next poll and stops)."""
    session, token = SESSIONS.create(expected, join_timeout=join_timeout)
    ended = "failed"
    try:
        clients = session.wait_joined(ctx.cancel, on_change=announce(ctx, session, token))
        yield session, clients
        ended = "finished"
    except BaseException as exc:
        ended = f"the run on the NAS stopped: {getattr(exc, 'message', None) or exc}"
        raise
    finally:
        session.end(ended)
