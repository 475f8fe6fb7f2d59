"""TrueNAS's official client (truenas_api_client and its `midclt`), unchanged, as the oracle of the
compatibility tests: each snapshot runs in its own virtualenv, in its own process, against a real
``tengig serve``.

- "TS-25.10.5": the client shipped with TrueNAS 25.10, from the venv that tests/realmw builds for
  middlewared 25.10.6 (harness.middlewared_build).
- "master": the newest client (strict key format, SCRAM by default, PLAIN on request), in a small venv
  of its own built the same way: once per archive and lock hash, under $TENGIG_TEST_CACHE (default
  /var/cache/tengig-tests), outside the checkout, under a file lock.

Without the vendor snapshots the tests skip with one line (harness.require_vendor).
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.realmw.harness import python311, cache_root, middlewared_build, require_vendor, unpack

HERE = Path(__file__).resolve().parent
SCRIPTS = HERE / "official"
MASTER_ARCHIVE = "truenas-api_client-master.tar.gz"
MASTER_LOCK = HERE / "requirements-api-client.lock"
CLIENTS = ("TS-25.10.5", "master")


@dataclass(frozen=True)
class OfficialClient:
    name: str
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def midclt_path(self) -> Path:
        return self.venv / "bin" / "midclt"

    def midclt(self, *args: str, timeout: float = 120, env: dict[str, str] | None = None
               ) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.midclt_path), *args], capture_output=True, text=True, timeout=timeout,
                              env=env)

    def script(self, name: str, *args: str, timeout: float = 300) -> dict:
        """Run tests/server/official/<name>.py with this client; its one JSON line of output."""
        done = subprocess.run([str(self.python), str(SCRIPTS / f"{name}.py"), *args], capture_output=True,
                              text=True, timeout=timeout, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                                                "LANG": "C.UTF-8"})
        assert done.returncode == 0, f"{name} with the {self.name} client failed:\n{done.stdout}\n{done.stderr[-3000:]}"
        return json.loads(done.stdout.strip().splitlines()[-1])


def official_client(name: str) -> OfficialClient:
    if name == "TS-25.10.5":
        return OfficialClient(name, middlewared_build("25.10.6").venv)
    if name == "master":
        return OfficialClient(name, _master_venv())
    raise ValueError(f"no official client {name!r}; known: {', '.join(CLIENTS)}")


def _master_venv() -> Path:
    archive = require_vendor() / MASTER_ARCHIVE
    digest = hashlib.sha256(archive.read_bytes() + MASTER_LOCK.read_bytes()).hexdigest()[:16]
    root = cache_root() / f"api-client-master-{digest}"
    venv = root / "venv"
    if (root / "ready").is_file():
        return venv
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / ".build-api-client-master.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / "ready").is_file():
            return venv
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        subprocess.run([python311(), "-m", "venv", str(venv)], check=True, timeout=300)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, "-r", str(MASTER_LOCK)], check=True, timeout=600)
        subprocess.run([*pip, "--no-deps", str(unpack(archive, root / "client"))], check=True, timeout=600)
        (root / "ready").write_text(json.dumps({"archive": archive.name}))
    return venv
