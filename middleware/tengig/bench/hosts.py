"""Where a benchmark runs its programs: "on host X". The lab implements it with namespaces; a plain
Linux backend runs locally; a TrueNAS backend will run on the NAS. Benchmarks see only this seam.

The options are the generic ones, the same for every implementation: how a host starts a program
(the lab: `ip netns exec` or nsenter into a namespace) is the implementation's own business, chosen
where it is built (lab.hosts.LabHosts), never passed by a caller."""
from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from typing import Protocol

from ..runner import CancelToken, Completed


class Hosts(Protocol):
    def run(self, host: str, argv: Sequence[str], *, timeout: float, check: bool = True,
            env: Mapping[str, str] | None = None, cancel: CancelToken | None = None) -> Completed:
        """argv run to completion on ``host`` (runner.Runner.run's meaning for each option)."""
        ...

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, env: Mapping[str, str] | None = None,
              stdin_pipe: bool = False, stdout_pipe: bool = False) -> subprocess.Popen:
        """A long-running argv started on ``host``, its output in the log ``log_name`` (runner.Runner.spawn)."""
        ...
