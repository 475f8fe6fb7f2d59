"""Fixtures for the TrueNAS backend tests: stand-in TrueNASes (loopback only, no lab).

These tests touch no lab, so they do not take the repository-wide lab lock (tests/conftest.py): this
fixture of the same name replaces it here, and they run alongside lab tests."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tengig.client import Client, connect
from tengig.standin.truenas import StandinSeed, StandinThread, StandinTrueNAS, example_seed

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "truenas"


@pytest.fixture(scope="session", autouse=True)
def one_test_run_at_a_time():
    yield


def fixture_json(name: str):
    return json.loads((FIXTURES / name).read_text())


class Running:
    """A started stand-in, its thread (to read state on its loop), and the hook's calls."""

    def __init__(self, thread: StandinThread, nas: StandinTrueNAS, hook_calls: list):
        self.thread, self.nas, self.hook_calls = thread, nas, hook_calls

    @property
    def base(self) -> str:
        return f"ws://127.0.0.1:{self.nas.server.port}"

    def client(self) -> Client:
        return connect(self.base, self.nas.api_key)

    def state(self, function: Callable, *args):
        return self.thread.on_loop(function, *args)

    def active(self) -> dict[str, dict]:
        return self.state(lambda: {c["name"]: c for c in self.nas.state.network.active_configs()})


@pytest.fixture
def standin() -> Iterator[Callable[..., Running]]:
    """standin("25.04") or standin(seed=StandinSeed(...)): a running stand-in, stopped after the test."""
    with ExitStack() as stack:
        def start(release: str = "25.04", seed: StandinSeed | None = None) -> Running:
            hook_calls: list = []
            thread = StandinThread(seed or example_seed(release), on_active_change=hook_calls.append)
            nas = stack.enter_context(thread)
            return Running(thread, nas, hook_calls)
        yield start
