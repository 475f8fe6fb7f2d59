"""Recorded real output of the Linux tools (tests/fixtures/{ip,ethtool,ping,kernel-log}, written by
scripts/record_parser_fixtures.py): each command's stdout, stderr and exit code, as tengig's runner
returned them, and a runner that answers from them."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tengig.errors import CommandFailed
from tengig.runner import Completed

FIXTURES = Path(__file__).parent / "fixtures"
NETNS_PREFIX = ("ip", "netns", "exec", "tengig-rec-host")


def recorded(directory: str) -> dict[str, Completed]:
    """NAME -> what `NAME` in tests/fixtures/<directory>/recorded.json left (argv without the netns prefix)."""
    base = FIXTURES / directory
    out = {}
    for name, cmd in json.loads((base / "recorded.json").read_text())["commands"].items():
        argv = tuple(cmd["argv"])
        if argv[:len(NETNS_PREFIX)] == NETNS_PREFIX:
            argv = argv[len(NETNS_PREFIX):]
        out[name] = Completed(argv, cmd["returncode"], (base / cmd["stdout"]).read_text(),
                              (base / cmd["stderr"]).read_text() if cmd["stderr"] else "", 0.0)
    return out


class RecordedRunner:
    """A Runner that answers every argv from the recordings (and fails the test on any other)."""

    def __init__(self, *directories: str):
        self.by_argv = {done.argv: done for d in directories for done in recorded(d).values()}
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout: float, netns: str | None = None, check: bool = True, **_) -> Completed:
        key = tuple(argv)
        self.calls.append(key)
        assert key in self.by_argv, f"not recorded: {key}"
        done = self.by_argv[key]
        if check and done.returncode != 0:
            raise CommandFailed(list(key), done.returncode, done.stdout, done.stderr)  # as Runner.run does
        return done
