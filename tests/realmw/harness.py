"""TrueNAS's real middlewared (25.10.6, 25.04.2.6 and 26.0.0-BETA.3, built from the vendor snapshots) for tests.

- The snapshots are test inputs, found in ``$TENGIG_VENDOR_DIR``, else ``<checkout>/../shared/vendor``,
  else ``/work/shared/vendor``; without them the tests skip with one line saying so.
- ``middlewared_build(version)``: a virtualenv with middlewared's Python dependencies
  (requirements-middlewared.lock; 26's: requirements-middlewared-26.lock) and the official API client
  (``midclt``), and the unpacked source, built once per archive and lock hash under
  ``$TENGIG_TEST_CACHE`` (default /var/cache/tengig-tests), outside the checkout, under a file lock.
  25.x runs on Python 3.11 (Debian bookworm's, as on SCALE 25.x), 26 on 3.13 (SCALE 26 is built on
  trixie; here from pyenv): without that interpreter the tests of that version skip with one line.
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
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..untar import unpack_into
from .session_stop import stop_session

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]
LOCK_FILE = HERE / "requirements-middlewared.lock"
NEXT_VERSION = "26.0.0-BETA.3"
ARCHIVES = {
    "25.10.6": "truenas-middleware-TS-25.10.6.tar.gz",
    "25.04.2.6": "truenas-middleware-TS-25.04.2.6.tar.gz",
    NEXT_VERSION: "truenas-middleware-TS-26.0.0-BETA.3.tar.gz",
    "13.3": "truenas-middleware-TN-13.3-U1.2.tar.gz",
}
# 26: pydantic 2.10 and aiohttp 3.11 (trixie's lines; 26's code needs them, 25.x's CRUDService breaks on 2.10).
LOCK_FILES = {NEXT_VERSION: HERE / "requirements-middlewared-26.lock"}
PYTHONS = {NEXT_VERSION: (3, 13)}   # PEP 695 generics in 26's api/base/decorator.py; 25.x: 3.11
API_CLIENT = "truenas-api_client-TS-25.10.5.tar.gz"
SCALE_VERSIONS = ("25.10.6", "25.04.2.6")
PLUGIN_VERSIONS = (*SCALE_VERSIONS, NEXT_VERSION)   # where the plugin's own module runs (test_plugin_in_middlewared)
# Plugins loaded beside tengig's: 25.04's core.get_jobs takes its query-filters schema from datastore.
NEEDED_PLUGINS = {"25.04.2.6": ("datastore",)}
# TrueNAS's own network code: its database layer, network.configuration & co (network.py, network_/), and
# interface.* (network.py's InterfaceService with the interface/ package: netif over pyroute2 on 25.x).
NETWORK_PLUGINS = ("datastore", "network", "interface")
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
    unpack_into(archive, dest)
    (top,) = [p for p in dest.iterdir() if p.is_dir()]
    return top


def _is_python(candidate: str, wanted: tuple[int, int]) -> bool:
    if not candidate or not Path(candidate).exists():
        return False
    done = subprocess.run([candidate, "-c", "import sys; print(tuple(sys.version_info[:2]))"], capture_output=True,
                          text=True, timeout=30)
    return done.stdout.strip() == str(wanted)


def _pyenv_pythons(wanted: tuple[int, int]) -> list[str]:
    pyenv = shutil.which("pyenv")
    root = os.environ.get("PYENV_ROOT") or (subprocess.run([pyenv, "root"], capture_output=True, text=True,
                                                           timeout=30).stdout.strip() if pyenv else "")
    name = "python{}.{}".format(*wanted)
    return [str(p) for p in sorted(Path(root).glob(f"versions/{wanted[0]}.{wanted[1]}.*/bin/{name}"), reverse=True)
            ] if root else []


def python_for(version: str) -> str:
    """The interpreter middlewared ``version`` runs on here (3.11 for 25.x, 3.13 for 26): the system's,
    else pyenv's; without one the test skips with one line saying which."""
    wanted = PYTHONS.get(version, (3, 11))
    name = "python{}.{}".format(*wanted)
    for candidate in (f"/usr/bin/{name}", shutil.which(name) or "", *_pyenv_pythons(wanted),
                      *(["/usr/bin/python3"] if wanted == (3, 11) else [])):
        if _is_python(candidate, wanted):
            return candidate
    pytest.skip(f"no Python {wanted[0]}.{wanted[1]} to build middlewared {version}'s virtualenv with "
                f"(TrueNAS {version.split('.')[0]} runs on {wanted[0]}.{wanted[1]}; `pyenv install "
                f"{wanted[0]}.{wanted[1]}` gives one)")


def python311() -> str:
    return python_for("25.10.6")


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
    def python_dir(self) -> str:
        """'python3.11' or 'python3.13': the lib/ directory name of this build's interpreter."""
        return "python{}.{}".format(*PYTHONS.get(self.version, (3, 11)))

    @property
    def site_packages(self) -> Path:
        return self.venv / "lib" / self.python_dir / "site-packages"


def middlewared_build(version: str) -> MiddlewaredBuild:
    vendor = require_vendor()
    archive, client = vendor / ARCHIVES[version], vendor / API_CLIENT
    lock_file = LOCK_FILES.get(version, LOCK_FILE)
    python = python_for(version) if version in PYTHONS else None
    digest = hashlib.sha256()
    for path in (archive, client, lock_file):
        digest.update(path.read_bytes())
    root = cache_root() / f"middlewared-{version}-{digest.hexdigest()[:16]}"
    build = MiddlewaredBuild(version, root / "venv", root / "src")
    if (root / "ready").is_file() and (root / "compiled").is_file():
        return build
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f".build-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / "ready").is_file():
            _compile(build, root)
            return build
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        top = unpack(archive, root / "unpacked")
        (top / "src" / "middlewared").rename(build.source)
        shutil.rmtree(root / "unpacked")
        subprocess.run([python or python_for(version), "-m", "venv", str(build.venv)], check=True, timeout=300)
        pip = [str(build.python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "-r", str(lock_file)], check=True, timeout=1800)
        client_top = unpack(client, root / "client")
        subprocess.run([*pip, "--no-deps", str(client_top)], check=True, timeout=600)
        (root / "ready").write_text(json.dumps({"version": version, "archive": archive.name}))
        _compile(build, root)
    return build


def _compile(build: MiddlewaredBuild, root: Path) -> None:
    """The pristine source's bytecode, by the build's own interpreter: each test's TrueNAS copies the source
    with it (copytree keeps the files' times, so it stays valid), and its middlewared does not compile the
    modules it imports at every first start (2.7 CPU-s compile all of 25.10.6's 2,712 files here)."""
    if (root / "compiled").is_file():
        return
    # a file its interpreter cannot compile is left to be compiled (and refused) where it is imported, as before
    subprocess.run([str(build.python), "-m", "compileall", "-q", str(build.source)], timeout=600, capture_output=True)
    (root / "compiled").write_text("")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MiddlewaredSystem:
    """One test's TrueNAS running real middlewared (see the module docstring)."""

    def __init__(self, build: MiddlewaredBuild, root: Path, *, api_key: str = "", extra_plugins: tuple[str, ...] = (),
                 netns: str | None = None, network: bool = False):
        """``netns``: run middlewared (and its restarts) in that network namespace, as the NAS of the lab,
        with its TCP site on every address there (where TrueNAS's nginx listens; see launch.py).
        ``network``: TrueNAS's own ``datastore`` (its database built by its own migrations, migrate.py),
        ``network`` and ``interface`` plugins run too, acting on ``netns``'s interfaces; in a mount
        namespace of its own where /etc/resolv.conf and /etc/hosts are this test's files."""
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
        stubs = "import stubs; stubs.ROOTS.update(stubs.NEXT_ROOTS)" if build.version == NEXT_VERSION else "import stubs"
        (site / "_middlewared_test_base.pth").write_text(f"{self.source}\n{build.site_packages}\n{HERE}\n{stubs}\n")
        self.run_dir = root / "run"
        self.port = free_port()
        self.api_key = api_key
        if network and not netns:
            raise ValueError("TrueNAS's network plugins act on the interfaces they see: give them a netns")
        self.network = network
        plugins = ("tengig_plugin", *NEEDED_PLUGINS.get(build.version, ()), *(NETWORK_PLUGINS if network else ()),
                   *extra_plugins)
        self.plugins = tuple(dict.fromkeys(plugins))
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
        return self.interpreter_dir / "lib" / self.build.python_dir / "site-packages"

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
        if self.network:
            argv += ["--network", "--private-etc", str(self.root / "etc")]
        if self.netns:
            argv = ["nsenter", f"--net=/run/netns/{self.netns}", "--", *argv, "--tcp-host", "0.0.0.0"]
        if self.network:
            # slave: the lab's mounts (zfs-fuse mounts a new dataset in its daemon's namespace, where the lab's
            # smbd serves it) reach middlewared's namespace; its own /etc binds do not leave it
            argv = ["unshare", "--mount", "--propagation", "slave", "--", *argv]
        return argv

    def restart_argv(self) -> list[str]:
        """What an installer runs to restart this middlewared (``systemctl restart middlewared`` on SCALE)."""
        return [sys.executable, str(HERE / "restart.py"), str(self.root)]

    def install_database(self) -> None:
        """TrueNAS's configuration database, migrated by its own alembic migrations (migrate.py) once per
        build and copied for this TrueNAS (its datastore plugin then reads and writes the copy)."""
        cached = self.build.venv.parent / "freenas-v1.db"
        if not cached.is_file():
            with open(self.build.venv.parent.parent / f".db-{self.build.version}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not cached.is_file():
                    partial = cached.with_suffix(".partial")
                    partial.unlink(missing_ok=True)
                    done = subprocess.run([str(self.python), "-P", str(HERE / "migrate.py"), str(self.source),
                                           str(partial)], capture_output=True, text=True, timeout=600)
                    assert done.returncode == 0, f"TrueNAS's migrations failed:\n{done.stderr[-3000:]}"
                    partial.rename(cached)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(cached, self.run_dir / "freenas-v1.db")

    def start(self) -> None:
        if self.network and not (self.run_dir / "freenas-v1.db").exists():
            self.install_database()
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
