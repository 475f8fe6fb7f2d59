"""The lab as three machines for runs that desktops join (issue 17): `tengig serve` on nas (system
local), `tengig client join` on a desktop, each started on its host as a person would at each machine.

The NAS's tengig runs under strace (execve only): every program it started, with its argv, is in
``programs_of(trace)``, so a test can show that none of them reached into another host (no `ip netns
exec`, no `nsenter`) and that the NAS's own tools (fio, iperf3 -s, smbstatus) ran there.
"""
from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

from tengig.client.client import Client
from tengig.client.errors import ClientError
from tengig.lab import samba

TENGIG = str(Path(sys.executable).parent / "tengig")
PORT = 8611
TRACE = "nas-tengig.strace"
EXECVE = re.compile(r'execve\("[^"]*", \[(.*?)\]')
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')


@contextlib.contextmanager
def nas_api(lab, tmp_path: Path, *, ui_dir: Path | None = None):
    """`tengig serve` on nas (every address of nas; nas alone has them), under strace; the test is root
    on its unix socket. Yields (client, {desktop: the URL it joins with, over its own cable}). ``ui_dir``:
    it also serves that panel build (API keys live next to its database, tmp_path / apikeys.sqlite3)."""
    sock = tmp_path / "nas.sock"
    env = {**os.environ, "TENGIG_DB": str(tmp_path / "nas.sqlite3")}
    argv = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=execve", "-e", "signal=none", "-s", "512",
            "-o", str(tmp_path / TRACE), TENGIG, "serve", "--host", "0.0.0.0", "--port", str(PORT),
            "--unix-socket", str(sock)] + (["--ui-dir", str(ui_dir)] if ui_dir else [])
    proc = lab.spawn("nas", argv, log_name="test-nas-serve.log", netns_mode="nsenter", env=env)
    try:
        for _ in range(400):
            if sock.exists():
                break
            assert proc.poll() is None, (lab.paths.logs / "test-nas-serve.log").read_text()
            time.sleep(0.05)
        urls = {host: f"ws://{lab.plan().address_of('nas', host)}:{PORT}"
                for host in ("desk", "lab") if _linked(lab, host)}
        with Client(f"ws+unix://{sock}") as api:
            yield api, urls
    finally:
        for child in _children(proc.pid):  # tengig serve itself: strace detaches when it is stopped
            os.kill(child, signal.SIGTERM)
        proc.wait(timeout=30)


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def programs_of(tmp_path: Path) -> list[str]:
    """Every program the NAS's tengig started (successful execve), as its argv joined by spaces."""
    out = []
    for line in (tmp_path / TRACE).read_text().splitlines():
        m = EXECVE.search(line)
        if m and line.rstrip().endswith("= 0"):
            out.append(" ".join(ARG.findall(m.group(1))))
    return out


def _linked(lab, host: str) -> bool:
    try:
        lab.plan().address_of("nas", host)
        return True
    except Exception:
        return False


def join(lab, host: str, url: str, token: str, *, auth: bool = True):
    argv = [TENGIG, "client", "join", url, "--token", token, "--name", host]
    if auth:
        argv += ["--smb-auth-file", str(lab.paths.samba / "client.auth"),
                 "--smb-conf", str(samba.client_dir(lab.paths, host) / "smb.conf")]
    return lab.spawn(host, argv, log_name=f"test-join-{host}.log")


def start_run(api: Client, request: dict):
    """The run as a job in a thread; returns (thread, outcome dict, the token once shown)."""
    outcome: dict = {}
    token = threading.Event()

    outcome["percents"] = []

    def progress(job):
        if (job.get("progress") or {}).get("percent") is not None:
            outcome["percents"].append(job["progress"]["percent"])
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session and "token" not in outcome:
            outcome["token"] = session["token"]
            token.set()

    def body():
        try:
            outcome["result"] = api.call("tengig.bench.run", request, job=True, callback=progress, timeout=900)
        except ClientError as exc:
            outcome["error"] = exc
        token.set()

    thread = threading.Thread(target=body)
    thread.start()
    assert token.wait(60), "the run never showed its join token"
    return thread, outcome
