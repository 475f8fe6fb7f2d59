"""`tengig mesh apply --local HOST` and `tengig lagg apply` on a machine that is a TrueNAS: refused,
naming system: truenas (TrueNAS owns its network configuration; a change made with iproute2 behind
middlewared's back is undone by its next interface.sync). The machine is made a TrueNAS as tengig
recognises one (its middlewared in /usr/lib/python3/dist-packages, systems/local.py) in a private
mount namespace, with an empty network namespace around it so nothing real could be changed."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from ..lagg.layouts import seed001
from ..mesh.layouts import THREE_HOSTS_10G

AS_A_TRUENAS = """
import subprocess, sys
from pathlib import Path
subprocess.run(["mount", "-t", "tmpfs", "tengig-test", "/usr/lib/python3/dist-packages"], check=True)
Path("/usr/lib/python3/dist-packages/middlewared").mkdir()
from tengig.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _tengig_on_a_truenas(*args: str) -> subprocess.CompletedProcess:
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is needed to make this machine look like a TrueNAS")
    return subprocess.run(["unshare", "--mount", "--net", "--propagation", "private", "--",
                           sys.executable, "-c", AS_A_TRUENAS, *args], capture_output=True, text=True, timeout=120)


def test_mesh_apply_on_this_machine_is_refused_on_a_truenas_naming_system_truenas(tmp_path):
    request = tmp_path / "mesh.json"
    nas_as_truenas = json.loads(json.dumps(THREE_HOSTS_10G))
    request.write_text(json.dumps(nas_as_truenas))
    host = nas_as_truenas["hosts"][0]["name"]
    done = _tengig_on_a_truenas("mesh", "apply", "--request", str(request), "--local", host)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: --local: this machine is TrueNAS (TrueNAS middlewared in "), done.stderr
    assert "system: truenas" in done.stderr and "midclt call -j tengig.mesh.apply" in done.stderr
    assert "iproute2" in done.stderr


def test_lagg_apply_on_this_machine_is_refused_on_a_truenas_naming_system_truenas(tmp_path):
    # tengig.lagg.apply refuses it, once the API has checked the request (as for the panel): a valid one,
    # since the empty network namespace has no ports to plan from
    request = tmp_path / "lagg.json"
    request.write_text(json.dumps(seed001("linux")))
    done = _tengig_on_a_truenas("lagg", "apply", "--request", str(request))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: apply: this machine is TrueNAS"), done.stderr
    assert "system: truenas" in done.stderr and "midclt call -j tengig.lagg.apply" in done.stderr
