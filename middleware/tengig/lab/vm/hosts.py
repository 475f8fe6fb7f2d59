"""The bonding lab's VMs as bench.hosts.Hosts: each program runs in its VM through the VM's agent
(guest_agent.py), by a local agent_call.py process in the lab's network namespace, so a caller gets a
real local process (exit code, output, TERM stops the program in the VM) as with the other labs."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ...runner import CancelToken, Completed, Runner

AGENT_PORT = 7000  # guest_init.sh starts the agent on it
AGENT_CALL = Path(__file__).with_name("agent_call.py")


class VmHosts:
    def __init__(self, netns: str, agents: Mapping[str, str], log_dir: Path, runner: Runner):
        self.netns = netns
        self.agents = dict(agents)
        self.log_dir = log_dir
        self.runner = runner

    def argv(self, host: str, argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
        if host not in self.agents:
            raise ValueError(f"{host!r} is not a VM of the lab ({', '.join(self.agents)})")
        options = [f"--env={k}={v}" for k, v in (env or {}).items()]
        return [sys.executable, "-I", str(AGENT_CALL), self.agents[host], str(AGENT_PORT), *options, "--", *argv]

    def run(self, host: str, argv: Sequence[str], *, timeout: float, check: bool = True,
            env: Mapping[str, str] | None = None, cancel: CancelToken | None = None) -> Completed:
        return self.runner.run(self.argv(host, argv, env), netns=self.netns, timeout=timeout, check=check,
                               cancel=cancel)

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, env: Mapping[str, str] | None = None,
              stdin_pipe: bool = False, stdout_pipe: bool = False) -> subprocess.Popen:
        if stdin_pipe:
            raise ValueError("a VM's program takes no input from the host (stdin_pipe)")
        return self.runner.spawn(self.argv(host, argv, env), netns=self.netns, log_path=self.log_dir / log_name,
                                 stdout_pipe=stdout_pipe)
