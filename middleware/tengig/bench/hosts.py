"""Where a benchmark runs its programs: "on host X". The lab implements it with namespaces; a plain
Linux backend runs locally; a TrueNAS backend will run on the NAS. Benchmarks see only this seam."""
from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Protocol

from ..runner import Completed


class Hosts(Protocol):
    def run(self, host: str, argv: Sequence[str], *, timeout: float, **kwargs) -> Completed: ...

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, **kwargs) -> subprocess.Popen: ...
