"""TrueNAS's real middlewared (25.10.6 and 25.04.2.6, built from the vendor snapshots) for tests.

- The snapshots are test inputs, found in ``$TENGIG_VENDOR_DIR``, else ``<checkout>/../shared/vendor``,
  else ``/work/shared/vendor``; without them the tests skip with one line saying so.
- ``middlewared_build(version)``: a virtualenv with middlewared's Python dependencies
  (requirements-middlewared.lock) and the official API client (``midclt``), and the unpacked
  source, built once per archive and lock hash under ``$TENGIG_TEST_CACHE`` (default
  /var/cache/tengig-tests), outside the checkout, under a file lock.
- ``MiddlewaredSystem``: one test's TrueNAS: its own copy of middlewared's source (so a plugin
  installed into its ``plugins/`` directory stays in that test), its own interpreter (a pip-less
  venv that sees the cached dependencies; its site-packages is where an installer puts tengig),
  a run directory, a TCP port, and launch.py started as a process in its own session. It is driven
  with the official ``midclt`` over the unix socket (root, as on a TrueNAS) or TCP.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from .session_stop import stop_session

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]
LOCK_FILE = HERE / "requirements-middlewared.lock"
ARCHIVES = {
    "25.10.6": "truenas-middleware-TS-25.10.6.tar.gz",
    "25.04.2.6": "truenas-middleware-TS-25.04.2.6.tar.gz",
    "13.3": "truenas-middleware-TN-13.3-U1.2.tar.gz",
}
API_CLIENT = "truenas-api_client-TS-25.10.5.tar.gz"
SCALE_VERSIONS = ("25.10.6", "25.04.2.6")
# Plugins loaded beside tengig's: 25.04's core.get_jobs takes its query-filters schema from datastore.
NEEDED_PLUGINS = {"25.04.2.6": ("datastore",)}
START_TIMEOUT = 180.0


def vendor_dir() -> Path | None:
    for candidate in (os.environ.get("TENGIG_VENDOR_DIR"), CHECKOUT.parent / "shared" / "vendor", "/work/shared/vendor"):
        if candidate and (Path(candidate) / ARCHIVES["25.10.6"]).is_file():
            return Path(candidate)
    return None


def require_vendor() -> Path:
    found = vendor_dir()
    if found is None:
        pytest.skip("TrueNAS's middlewared snapshots are not here (set TENGIG_VENDOR_DIR to the vendor directory)")
    return found


def cache_root() -> Path:
    return Path(os.environ.get("TENGIG_TEST_CACHE", "/var/cache/tengig-tests"))


def unpack(archive: Path, dest: Path) -> Path:
    """Unpack a `git archive` snapshot into ``dest``; its single top directory."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    (top,) = [p for p in dest.iterdir() if p.is_dir()]
    return top


def python311() -> str:
    for candidate in ("/usr/bin/python3.11", "/usr/bin/python3", shutil.which("python3.11") or ""):
        if candidate and Path(candidate).exists():
            version = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 11))"],
                                     capture_output=True, text=True, timeout=30).stdout.strip()
            if version == "True":
                return candidate
    pytest.skip("no Python 3.11 to build middlewared's virtualenv with (TrueNAS 25.x runs on 3.11)")


@dataclass(frozen=True)
class MiddlewaredBuild:
    version: str
    venv: Path          # dependencies and the official client
    source: Path        # pristine unpacked src/middlewared (holds the `middlewared` package)

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def midclt(self) -> Path:
        return self.venv / "bin" / "midclt"

    @property
    def site_packages(self) -> Path:
        return self.venv / "lib" / "python3.11" / "site-packages"


def middlewared_build(version: str) -> MiddlewaredBuild:
    vendor = require_vendor()
    archive, client = vendor / ARCHIVES[version], vendor / API_CLIENT
    digest = hashlib.sha256()
    for path in (archive, client, LOCK_FILE):
        digest.update(path.read_bytes())
    root = cache_root() / f"middlewared-{version}-{digest.hexdigest()[:16]}"
    build = MiddlewaredBuild(version, root / "venv", root / "src")
    if (root / "ready").is_file():
        return build
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f".build-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / "ready").is_file():
            return build
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        top = unpack(archive, root / "unpacked")
        (top / "src" / "middlewared").rename(build.source)
        shutil.rmtree(root / "unpacked")
        subprocess.run([python311(), "-m", "venv", str(build.venv)], check=True, timeout=300)
        pip = [str(build.python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "-r", str(LOCK_FILE)], check=True, timeout=1800)
        client_top = unpack(client, root / "client")
        subprocess.run([*pip, "--no-deps", str(client_top)], check=True, timeout=600)
        (root / "ready").write_text(json.dumps({"version": version, "archive": archive.name}))
    return build


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MiddlewaredSystem:
    """One test's TrueNAS running real middlewared (see the module docstring)."""

    def __init__(self, build: MiddlewaredBuild, root: Path, *, api_key: str = "", extra_plugins: tuple[str, ...] = (),
                 netns: str | None = None):
        """``netns``: run middlewared (and its restarts) in that network namespace, as the NAS of the lab,
        with its TCP site on every address there (where TrueNAS's nginx listens; see launch.py)."""
        self.build = build
        self.netns = netns
        self.root = root
        self.source = root / "src"
        shutil.copytree(build.source, self.source, symlinks=True)
        self.plugins_dir = self.source / "middlewared" / "plugins"
        self.interpreter_dir = root / "python"
        base_python = os.path.realpath(build.python)  # the interpreter the cached venv was made from
        subprocess.run([base_python, "-m", "venv", "--without-pip", str(self.interpreter_dir)], check=True, timeout=60)
        site = self.site_packages
        # The source, the cached dependencies, and the native-module stand-ins (stubs.py) loaded at
        # interpreter start, as the real modules are present on a TrueNAS for any process.
        (site / "_middlewared_test_base.pth").write_text(
            f"{self.source}\n{build.site_packages}\n{HERE}\nimport stubs\n")
        self.run_dir = root / "run"
        self.port = free_port()
        self.api_key = api_key
        self.plugins = ("tengig_plugin", *NEEDED_PLUGINS.get(build.version, ()), *extra_plugins)
        self.db = root / "results.sqlite3"
        self.log_path = root / "middlewared.log"
        self.proc: subprocess.Popen | None = None

    # what an installer sees of this TrueNAS
    @property
    def python(self) -> Path:
        """middlewared's interpreter (as /usr/bin/python3 is on SCALE)."""
        return self.interpreter_dir / "bin" / "python3"

    @property
    def site_packages(self) -> Path:
        return self.interpreter_dir / "lib" / "python3.11" / "site-packages"

    @property
    def socket_uri(self) -> str:
        return f"ws+unix://{self.run_dir / 'middlewared.sock'}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def launch_argv(self) -> list[str]:
        argv = [str(self.python), str(HERE / "launch.py"), "--run-dir", str(self.run_dir), "--port", str(self.port),
                "--version", self.build.version]
        for plugin in self.plugins:
            argv += ["--plugin", plugin]
        if self.api_key:
            argv += ["--api-key", self.api_key]
        if self.netns:
            argv = ["nsenter", f"--net=/run/netns/{self.netns}", "--", *argv, "--tcp-host", "0.0.0.0"]
        return argv

    def restart_argv(self) -> list[str]:
        """What an installer runs to restart this middlewared (``systemctl restart middlewared`` on SCALE)."""
        return [sys.executable, str(HERE / "restart.py"), str(self.root)]

    def start(self) -> None:
        (self.root / "launch.json").write_text(json.dumps({"argv": self.launch_argv(), "env": self.env(),
                                                            "log": str(self.log_path)}))
        subprocess.run(self.restart_argv(), check=True, timeout=60)

    def env(self) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TENGIG_DB": str(self.db), "HOME": str(self.root),
                "LANG": "C.UTF-8"}

    def pid(self) -> int | None:
        try:
            return int((self.run_dir / "middlewared.pid").read_text())
        except (OSError, ValueError):
            return None

    def alive(self) -> bool:
        pid = self.pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        status = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "Z"
        return status != "Z"

    def wait_serving(self, timeout: float = START_TIMEOUT) -> bool:
        """True once core.ping answers over the unix socket; False if middlewared exited or never did."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.pid() is not None and not self.alive() and time.monotonic() - started > 5:
                return False  # it exited (5 s of grace: the pid file may name the one just replaced)
            if (self.run_dir / "middlewared.sock").exists():
                done = self.midclt("call", "core.ping", timeout=30)
                if done.returncode == 0 and done.stdout.strip() == "pong":
                    return True
            time.sleep(0.5)
        return False

    def midclt(self, *args: str, timeout: float = 120, uri: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.build.midclt), "-u", uri or self.socket_uri, *args], capture_output=True,
                              text=True, timeout=timeout)

    def methods(self) -> dict:
        done = self.midclt("call", "core.get_methods", timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """Stop its whole session (SIGTERM, then SIGKILL) and remove what it leaves (session_stop.py)."""
        pid = self.pid()
        if pid is not None:
            stop_session(pid)
