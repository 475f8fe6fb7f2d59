"""`tengig plugin install|status|uninstall` where it must refuse: on a machine that is not a TrueNAS
(this one), and without root. A clear message, exit 1, and nothing written anywhere."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tengig.plugin_install.target import SCALE_LIB_DIR

TENGIG = str(Path(sys.executable).with_name("tengig"))


def _run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kwargs)


@pytest.mark.parametrize("action", ["install", "uninstall", "status"])
def test_not_a_truenas_is_said_and_nothing_is_written(action):
    if SCALE_LIB_DIR.exists():
        pytest.skip(f"{SCALE_LIB_DIR} exists on this machine")
    for _ in range(2):  # twice: the same answer, still nothing written
        done = _run([TENGIG, "plugin", action])
        assert done.returncode == 1
        assert "this machine is not a TrueNAS" in done.stderr and "nothing was changed" in done.stderr
        assert "tengig serve" in done.stderr
    assert not SCALE_LIB_DIR.exists()


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is not installed")
@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_without_root_is_refused_before_looking_at_the_system(action, tmp_path):
    done = _run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", TENGIG, "plugin", action],
                env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 1, done.stderr
    assert "run as root" in done.stderr and "nothing was changed" in done.stderr
