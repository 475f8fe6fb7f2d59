"""shellcheck (Debian 12's, installed by scripts/setup.sh) finds nothing in any shell script of the
repository. Scripts are found by their #! line, not their name: .ci/run, the jail plugin's rc.d script
and its commands have no .sh. FreeBSD rc.d scripts are checked as POSIX sh (--shell=sh), as rc(8) runs
them."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHEBANG = re.compile(rb"^#!\s*(?:/usr/bin/env\s+)?(?:/\S*/)?(sh|bash|dash|ksh)(?:\s|$)")
# Scripts that must be among those found, so that a broken finder cannot pass by finding nothing.
KNOWN = {".ci/run", "scripts/setup.sh", "scripts/test.sh", "plugin/iocage/post_install.sh",
         "plugin/iocage/overlay/usr/local/etc/rc.d/tengig"}


def repo_files() -> list[str]:
    """Every file git tracks or would track (committed, staged or new, but not ignored)."""
    out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         capture_output=True, check=True, timeout=60).stdout
    return sorted({name for name in out.decode().split("\0") if name and (REPO / name).is_file()})


def shell_scripts() -> list[str]:
    found = []
    for name in repo_files():
        with open(REPO / name, "rb") as f:
            if SHEBANG.match(f.readline()):
                found.append(name)
    return found


def test_every_sh_file_has_a_shebang_so_the_search_below_finds_it():
    scripts = set(shell_scripts())
    assert KNOWN <= scripts, KNOWN - scripts
    unmarked = [n for n in repo_files() if n.endswith((".sh", ".bash")) and n not in scripts]
    assert not unmarked, f"no #!/bin/sh or bash line: {unmarked}"


@pytest.mark.parametrize("name", shell_scripts())
def test_shellcheck_finds_nothing(name):
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is missing: scripts/setup.sh installs it (apt-get install shellcheck)"
    args = [shellcheck, "--format=gcc", "--external-sources"]  # follow `. scripts/x.sh` into the sourced file
    if "/rc.d/" in f"/{name}":
        args.append("--shell=sh")
    out = subprocess.run([*args, name], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
