"""`tengig client join URL` and `tengig client kit --nas URL` refuse a URL that is not the NAS's API in
words naming the argument or flag, before connecting or writing anything, and never with a traceback: only
ws:// or wss://, a host name or IP address, an optional port, and an IPv6 zone id that is an interface
name (the kit writes it into a PowerShell script)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.abuse

REPO = Path(__file__).resolve().parents[2]
TOKEN = "tgb-" + "0123456789abcdef" * 3
BAD_URLS = ["ws://[::1", "ws://[fe80::1%';calc;']:8610", "ws://[fe80::1%\u2012;calc;\u2012]:8610",
            "ws://[fe80::1%eth0 x]:1", "http://nas:8610", "ws://nas:99999", "ws://na s", "ws://nas/other",
            "ws://nas\x1b]0;x\x07"]


def _tengig(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'middleware'}"}
    return subprocess.run([sys.executable, "-m", "tengig", *argv], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("url", BAD_URLS)
def test_the_kit_refuses_a_bad_nas_naming_the_flag(tmp_path, url):
    done = _tengig("client", "kit", "--os", "windows", "--nas", url, "--token", TOKEN, "--share", "media",
                   "--out", "kit.ps1", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: --nas: ") and "Traceback" not in done.stderr, done.stderr
    assert "\x1b" not in done.stderr and not (tmp_path / "kit.ps1").exists()


@pytest.mark.parametrize("url", BAD_URLS)
def test_join_refuses_a_bad_url_naming_it(tmp_path, url):
    done = _tengig("client", "join", url, "--token", TOKEN, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: URL: ") and "Traceback" not in done.stderr, done.stderr
    assert "\x1b" not in done.stderr


def test_a_zone_id_that_is_an_interface_name_is_taken(tmp_path):
    done = _tengig("client", "kit", "--os", "windows", "--nas", "ws://[fe80::1%eth0]:8610", "--token", TOKEN,
                   "--share", "media", "--out", "kit.ps1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "'NasUri' = 'ws://[fe80::1%eth0]:8610/api/current'" in (tmp_path / "kit.ps1").read_bytes().decode("ascii")
