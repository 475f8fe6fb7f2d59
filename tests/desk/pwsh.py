"""A real PowerShell for the Windows kit's tests: PowerShell 7.6.9 for Linux with Pester 5.7.1, a test input
like the middlewared snapshots (never a runtime dependency of tengig).

- The bundle is found in ``$TENGIG_VENDOR_DIR``, else ``<checkout>/../shared/vendor``, else
  ``/work/shared/vendor``; without it the tests skip with one line saying so.
- It is unpacked once per archive (named by its hash) under ``$TENGIG_TEST_CACHE`` (default
  /var/cache/tengig-tests), outside the checkout, under a file lock, and reused.
- ``run_pwsh(argv)`` runs it with no profile, non-interactive, with a fixed environment (no telemetry, no
  update check; an English culture unless a test asks for another). It runs the bundle's .NET and pwsh.dll
  as its ``pwsh`` launcher does, but looks for libicu itself: the launcher's check (``ls`` of three globs)
  fails whenever one glob matches nothing, and then puts .NET in its invariant culture even where libicu is
  installed, so no test could show what a German desktop's culture does."""
from __future__ import annotations

import fcntl
import glob
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.realmw.harness import CHECKOUT, cache_root
from tests.untar import unpack_into

ARCHIVE = "powershell-7.6.9-linux-x64-pester-5.7.1.tar.gz"
TOP = "powershell-7.6.9-linux-x64"
PESTER_VERSION = "5.7.1"


def vendor_archive() -> Path | None:
    for candidate in (os.environ.get("TENGIG_VENDOR_DIR"), CHECKOUT.parent / "shared" / "vendor", "/work/shared/vendor"):
        if candidate and (Path(candidate) / ARCHIVE).is_file():
            return Path(candidate) / ARCHIVE
    return None


def _digest(archive: Path) -> str:
    # the archive's size and mtime name it well enough and cost nothing (hashing 54 MB each run would not)
    stat = archive.stat()
    return hashlib.sha256(f"{archive.name}:{stat.st_size}:{int(stat.st_mtime)}".encode()).hexdigest()[:16]


def pwsh_path() -> Path:
    """The unpacked pwsh launcher (unpacked on first use); skips the test where the bundle is absent."""
    archive = vendor_archive()
    if archive is None:
        pytest.skip(f"the vendored PowerShell is not here ({ARCHIVE}; set TENGIG_VENDOR_DIR to the vendor directory)")
    root = cache_root() / f"powershell-{_digest(archive)}"
    pwsh = root / TOP / "pwsh"
    if (root / "ready").is_file():
        return pwsh
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / ".powershell.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / "ready").is_file():
            return pwsh
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
        unpack_into(archive, root, kind="tar")
        (root / "ready").write_text(archive.name)
    return pwsh


def pwsh_argv() -> list[str]:
    """The command that starts pwsh (with pwsh_env): the bundle's .NET running its pwsh.dll."""
    top = pwsh_path().parent
    return [str(top / "dotnet" / "dotnet"), str(top / "lib" / "pwsh.dll")]


def pwsh_env(**extra: str) -> dict[str, str]:
    top = pwsh_path().parent
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root"),
           "LANG": "en_US.UTF-8", "POWERSHELL_TELEMETRY_OPTOUT": "1", "POWERSHELL_UPDATECHECK": "Off",
           "DOTNET_CLI_TELEMETRY_OPTOUT": "1", "DOTNET_NOLOGO": "1", "DOTNET_ROOT": str(top / "dotnet"),
           "PSModulePath": str(top / "Modules")}
    if not any(glob.glob(f"{lib}/libicuuc.so.*") for lib in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
                                                            "/usr/lib64")):
        env["DOTNET_SYSTEM_GLOBALIZATION_INVARIANT"] = "1"  # .NET stops at start without libicu
    env.update(extra)
    return env


def run_pwsh(args: list[str], *, timeout: float = 300, cwd: Path | None = None, env: dict[str, str] | None = None,
             stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """pwsh -NoProfile -NonInteractive ARGS (e.g. ['-File', path, ...] or ['-Command', text])."""
    return subprocess.run([*pwsh_argv(), "-NoProfile", "-NonInteractive", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=env or pwsh_env(), input=stdin)
