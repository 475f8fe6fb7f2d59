"""Browser tests of the panel: Debian's chromium driven by playwright-core (ui/e2e/browser.mjs runs
one scenario and prints what it saw as JSON); these helpers start it and read its report. The
production build (ui/dist) is what gets served, by a real TengigServer."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tengig.runner import in_netns

ROOT = Path(__file__).resolve().parents[2]
UI_DIST = ROOT / "ui" / "dist"
DRIVER = ROOT / "ui" / "e2e" / "browser.mjs"
SCREENSHOTS = ROOT / "test-output"
CHROMIUM = "/usr/bin/chromium"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]"}


def require_browser() -> None:
    missing = [what for what, ok in (
        (f"the built panel ({UI_DIST}/index.html; run `make setup`)", (UI_DIST / "index.html").is_file()),
        ("playwright-core (ui/node_modules; run `make setup`)", (ROOT / "ui/node_modules/playwright-core").is_dir()),
        (f"chromium ({CHROMIUM}; apt-get install chromium)", Path(CHROMIUM).is_file()),
        ("node", shutil.which("node") is not None),
    ) if not ok]
    if missing:
        pytest.fail("browser tests need " + ", ".join(missing))


def run_scenario(scenario: str, url: str, api_key: str, params: dict[str, Any] | None = None,
                 timeout: float = 200, netns: str | None = None) -> dict[str, Any]:
    """Run one scenario; its report ({ok, error, facts, requests, calls, screenshots}; calls are the
    JSON-RPC method names the page sent). Fails the test when the scenario could not finish (a wait
    timed out, the page threw). With ``netns``, the browser runs in that network namespace (a lab
    host's: the panel seen from a desktop), in this mount namespace (nsenter)."""
    require_browser()
    config = {"scenario": scenario, "url": url, "apiKey": api_key, "outDir": str(SCREENSHOTS),
              "chromium": CHROMIUM, "params": params or {}}
    argv = in_netns(["node", str(DRIVER), json.dumps(config)], netns, mode="nsenter")
    done = subprocess.run(argv, check=False, cwd=ROOT / "ui", capture_output=True, text=True, timeout=timeout)
    lines = done.stdout.strip().splitlines()
    try:
        report = json.loads(lines[-1])
    except (IndexError, ValueError):
        pytest.fail(f"browser scenario {scenario} printed no report (exit {done.returncode}):\n"
                    f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    if not report["ok"]:
        pytest.fail(f"browser scenario {scenario} failed: {report['error']}\nfacts: {report['facts']}")
    return report


def non_local(urls: list[str]) -> list[str]:
    """Requests that would leave this machine (data: and blob: URLs never do)."""
    out = []
    for url in urls:
        if url.startswith(("data:", "blob:")):
            continue
        host = url.split("/")[2].rsplit(":", 1)[0] if "://" in url else url
        if host not in LOCAL_HOSTS:
            out.append(url)
    return out


def outside_origin(urls: list[str], origin: str) -> list[str]:
    """Requests to anywhere but ``origin`` (``http://host:port``; its websockets, ``ws://host:port``, are
    the same origin; data: and blob: URLs are never requests)."""
    base = urlsplit(origin)
    same = {(base.scheme, base.netloc), ({"http": "ws", "https": "wss"}[base.scheme], base.netloc)}
    return [url for url in urls
            if not url.startswith(("data:", "blob:")) and (urlsplit(url).scheme, urlsplit(url).netloc) not in same]
