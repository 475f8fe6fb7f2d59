"""The Windows kit's messages, as Windows PowerShell 5.1 writes them (tests/desk/kit_replay.py), through
TrueNAS's real middlewared with the tengig plugin installed by its installer: the join, the polls, and
submissions in parts of at most 8 KiB (middlewared's own limit for a connection that has not logged
in), each the text ConvertTo-Json -Compress of 5.1 makes, the last a small-file write the NAS's small-file
phase reads (tests/desk/test_kit_replay.py check_replay). The NAS's side of the run is a stand-in
(session_standin.py: no pool is needed to take messages); the methods the kit calls are the plugin's.
One middlewared for this module."""
from __future__ import annotations

import json
import shutil

import pytest

from tests.desk.replay_cases import replay
from tests.desk.test_kit_replay import check_replay

from .conftest import TEST_API_KEY, installer_for
from .harness import HERE, MiddlewaredSystem, middlewared_build

pytestmark = pytest.mark.realmw  # no lab: runs beside the lab's tests (scripts/test.sh)

VERSION = "25.10.6"
STANDIN = "tengig_test_sessions"


@pytest.fixture(scope="module")
def truenas_with_standin(tmp_path_factory):
    system = MiddlewaredSystem(middlewared_build(VERSION), tmp_path_factory.mktemp("truenas-replay"),
                               api_key=TEST_API_KEY, extra_plugins=(STANDIN,))
    shutil.copy(HERE / "session_standin.py", system.plugins_dir / f"{STANDIN}.py")
    system.start()
    try:
        assert system.wait_serving(), system.log()[-3000:]
        installer_for(system).install()
        yield system
    finally:
        system.stop()


def _call(system: MiddlewaredSystem, method: str, *params, timeout: float = 120):
    done = system.midclt("call", method, *(json.dumps(p) for p in params), timeout=timeout)
    assert done.returncode == 0, done.stderr + system.log()[-2000:]
    return json.loads(done.stdout) if done.stdout.strip() else None


def test_the_kits_messages_as_windows_powershell_51_writes_them_are_taken_whole_by_middlewared(truenas_with_standin):
    system = truenas_with_standin
    made = _call(system, "tengig_test.session.create", 60)
    sid = made["id"]
    try:
        seen = replay(f"ws://127.0.0.1:{system.port}/api/current", made["token"],
                      post=lambda kind, params: _call(system, "tengig_test.session.post", sid, kind, params),
                      result=lambda iid: _call(system, "tengig_test.session.result", sid, iid, 60),
                      end=lambda: _call(system, "tengig_test.session.end", sid, "finished"),
                      joined=lambda: _call(system, "tengig_test.session.joined", sid))
    finally:
        _call(system, "tengig_test.session.end", sid, "finished")
    check_replay(seen)
