"""SIGTERM stops the server cleanly: running jobs end ABORTED (their events still go out), the
process exits 0, the unix socket is removed. Also `tengig serve` itself, as a user starts it."""
from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import aiohttp

from tengig.server.apikeys import ApiKeyStore

from .harness import open_raw

REPO = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = f"{REPO / 'middleware'}:{REPO}"
    env["TENGIG_DB"] = str(tmp_path / "results.sqlite3")
    return env


def test_sigterm_aborts_running_jobs_and_exits_0(tmp_path):
    key = ApiKeyStore(tmp_path / "apikeys.sqlite3").create("t")[1]
    sock = Path(tempfile.mkdtemp(prefix="tg-")) / "s.sock"
    proc = subprocess.Popen([sys.executable, "-m", "tests.server.serve_demo", str(sock)], cwd=REPO,
                            env=_env(tmp_path), stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline().split()[1])

        async def scenario():
            async with aiohttp.ClientSession() as session:
                conn = await open_raw(f"ws://127.0.0.1:{port}/api/current", session)
                await conn.login(key)
                await conn.result("core.subscribe", "core.get_jobs")
                counting = await conn.result("demo.jobs.count", {"steps": 1000, "seconds": 0.05})
                child = await conn.result("demo.jobs.child", 30)
                while len([e for e in conn.events if e["fields"]["state"] == "RUNNING"]) < 2:
                    await conn._read_one()
                proc.send_signal(signal.SIGTERM)
                return await conn.job_events(counting), await conn.job_events(child)

        counting, child = asyncio.run(scenario())
        assert counting[-1]["fields"]["state"] == "ABORTED" and child[-1]["fields"]["state"] == "ABORTED"
        assert proc.wait(timeout=15) == 0
        assert proc.stdout.read().strip() == "STOPPED"
        assert not sock.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_tengig_serve_starts_answers_and_stops_on_sigterm(tmp_path):
    sock = Path(tempfile.mkdtemp(prefix="tg-")) / "s.sock"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tengig.cli.main", "serve", "--port", "0", "--unix-socket", str(sock)],
        cwd=REPO, env=_env(tmp_path), stderr=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stderr.readline()
        match = re.search(r"ws://127\.0\.0\.1:(\d+)/api/current and ws\+unix://(\S+)", line)
        assert match, line
        ping = subprocess.run([sys.executable, "-m", "tengig.cli.main", "call", "-u", f"ws+unix://{sock}",
                               "core.ping"], cwd=REPO, env=_env(tmp_path), capture_output=True, text=True, timeout=30)
        assert (ping.returncode, ping.stdout) == (0, "pong\n"), ping.stderr
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert not sock.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
