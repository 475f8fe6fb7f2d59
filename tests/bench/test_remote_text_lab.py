"""One desktop's tool output reaches the other desktops (the run's abort reason) and `tengig bench` on
the NAS (its error) with its control characters escaped: a desktop submits terminal escapes as iperf3's
output (tests/bench/misbehaving_client.py, MODE escapes), an honest desktop joined the same run. On the
lab: `tengig bench net --join 2` on nas, both desktops on desk, each over desk's cable."""
from __future__ import annotations

import os
import re
import time

import pytest

from tengig.lab.nas_tengig import TENGIG, start_join

from .misbehaving_client import ESCAPES
from .test_bench_join_command import JOIN_LINE
from .test_joined_lab import _misbehave

pytestmark = [pytest.mark.lab, pytest.mark.abuse]
SHOWN = "\\x1b]0;owned\\x07\\x1b[2J\\u202egone\\x9b31m all good"
RAW = "\x1b\x07\u202e\x9b"


def test_a_misbehaving_desktops_escapes_reach_the_other_desktop_and_tengig_bench_escaped(shaped_lab, tmp_path):
    log = "test-bench-escapes.log"
    for name in (log, "test-escapes-honest.log", "test-misbehave-escapes.log"):  # the lab's logs are appended to
        (shaped_lab.paths.logs / name).unlink(missing_ok=True)
    nas = shaped_lab.spawn("nas", [*TENGIG, "bench", "net", "--system", "local", "--join", "2", "--port", "8614",
                                   "--db", str(tmp_path / "r.sqlite3")], log_name=log, netns_mode="nsenter",
                           env={**os.environ, "TENGIG_NAS_NAME": "nas"})
    url = f"ws://{shaped_lab.plan().address_of('nas', 'desk')}:8614"
    tokens: dict[str, str] = {}
    deadline = time.monotonic() + 60
    while url not in tokens and time.monotonic() < deadline and nas.poll() is None:
        tokens = {m.group(1): m.group(2) for m in JOIN_LINE.finditer((shaped_lab.paths.logs / log).read_text())}
        time.sleep(0.2)
    assert url in tokens, (shaped_lab.paths.logs / log).read_text()
    # both are "desk" to the NAS: whichever joins second is named desk-2 (on a busy machine, either)
    hostile = _misbehave(shaped_lab, url, tokens[url], "escapes")
    honest = start_join(shaped_lab, "desk", url, tokens[url], smb=False, log_name="test-escapes-honest.log")
    assert nas.wait(300) != 0 and honest.wait(60) != 0 and hostile.wait(60) != 0
    at_nas = (shaped_lab.paths.logs / log).read_text()
    at_desk = (shaped_lab.paths.logs / "test-escapes-honest.log").read_text()
    assert ESCAPES[0] == "\x1b" and [ch for ch in RAW if ch in at_nas + at_desk] == []
    assert re.search(rf"error: .*desk(-2)?: iperf3 printed no JSON: {re.escape(SHOWN)}", at_nas), at_nas[-2000:]
    assert re.search(rf"error: the NAS stopped the run: .*iperf3 printed no JSON: {re.escape(SHOWN)}", at_desk), at_desk
