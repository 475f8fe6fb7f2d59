"""`tengig bench --join` on the command line, as a person types it at the NAS: the command hosts tengig's
own bench service in its process, listens on the NAS's addresses, prints what each desktop runs, and the
desktop joins over its cable. On the lab: the command runs on nas, `tengig client join` on desk."""
from __future__ import annotations

import os
import re
import time

import pytest

from tengig.lab.nas_tengig import TENGIG, start_join

pytestmark = pytest.mark.lab
JOIN_LINE = re.compile(r"tengig client join (ws://\S+) --token (tgb-[0-9a-f]+)")


def test_tengig_bench_join_prints_the_join_command_and_a_desktop_joins(shaped_lab, tmp_path):
    db = tmp_path / "r.sqlite3"
    log = "test-bench-join.log"
    nas = shaped_lab.spawn("nas", [*TENGIG, "bench", "net", "--system", "local", "--join", "1", "--port", "8613",
                                   "--db", str(db)], log_name=log, netns_mode="nsenter",
                           env={**os.environ, "TENGIG_NAS_NAME": "nas"})
    text = ""
    desk_address = shaped_lab.plan().address_of("nas", "desk")
    urls: dict[str, str] = {}
    deadline = time.monotonic() + 60
    while not urls and time.monotonic() < deadline and nas.poll() is None:
        text = (shaped_lab.paths.logs / log).read_text(errors="replace")
        urls = {m.group(1): m.group(2) for m in JOIN_LINE.finditer(text)}
        time.sleep(0.2)
    assert urls, text
    # one line per address of the NAS; the desktop takes the one on its cable
    url = f"ws://{desk_address}:8613"
    assert url in urls, text
    desk = start_join(shaped_lab, "desk", url, urls[url], smb=False, log_name="test-bench-join-desk.log")
    assert nas.wait(300) == 0, (shaped_lab.paths.logs / log).read_text(errors="replace")[-3000:]
    assert desk.wait(30) == 0
    text = (shaped_lab.paths.logs / log).read_text(errors="replace")
    assert "client desk over desk-nas (1 Gb/s" in text and "bottleneck" in text, text[-3000:]
    assert f"stored as run 1 in {db}" in text
    assert "joined run" in (shaped_lab.paths.logs / "test-bench-join-desk.log").read_text()
