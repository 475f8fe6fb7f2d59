"""What a backend needs to run programs on a host during a piece of work: run (honouring the work's
cancel token, keeping each invocation with the work's raw outputs) and a view that cannot be
cancelled, for cleanup after an abort. bench.context.BenchContext is one; backends name only this."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ..runner import Completed


class CommandContext(Protocol):
    def run(self, host: str, argv: Sequence[str], *, timeout: float, tool: str | None = None,
            record: bool = True, check: bool = True, env: Mapping[str, str] | None = None) -> Completed: ...

    def uncancellable(self) -> "CommandContext": ...
