"""A joined desktop's own disk, asked for after its SMB copies (`tengig client join --disk PATH`): the NAS
asks for one file of the copies' size, reads what the desktop's tool printed (bench/join/own_disk.py), and
keeps the raw output with the run's. A desktop that cannot measure it is noted, not fatal: the run's
verdict against the catalogue's target stands."""
from __future__ import annotations

from ...errors import ToolOutputError
from ...units import MiB
from ..context import BenchContext
from .asking import ask
from .own_disk import OwnDisk, parse_own_disk
from .session import BenchSession, JoinedClient


def measure_joined_disk(ctx: BenchContext, session: BenchSession, client: JoinedClient,
                        size: int) -> tuple[OwnDisk | None, str | None]:
    """(what the desktop measured, None) or (None, why it could not)."""
    ctx.report(0, f"{client.name} measures its own disk ({size // MiB} MiB written, then read)")
    sub = ask(ctx, session, client, "disk", {"size": size}, timeout=120 + 4 * size / MiB, tool="own disk")
    ctx.report(100, f"{client.name}'s own disk measured")
    if sub.exit_code != 0:
        return None, f"{client.name} could not measure its own disk (exit {sub.exit_code}): {sub.stderr.strip()[-300:]}"
    try:
        return parse_own_disk(sub.argv, sub.stdout, sub.stderr, size=size), None
    except ToolOutputError as exc:
        return None, f"{client.name}'s own disk: {exc.message}"
