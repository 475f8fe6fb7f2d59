"""Up and down leave nothing behind, also after a crash half-way; bad input leaves nothing either."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tengig.cli.main import main
from tengig.lab import build_spec, residue
from tengig.lab.plan import POOL_NAME
from tengig.lab.status import lab_status

pytestmark = pytest.mark.lab
TENGIG = str(Path(sys.executable).parent / "tengig")


def test_down_leaves_nothing(clean_machine):
    lab = clean_machine
    lab.up(build_spec())
    assert not residue.scan(lab.runner, lab.paths).empty()
    lab.down()
    left = residue.scan(lab.runner, lab.paths)
    assert left.empty(), left.describe()


def test_killed_half_way_then_down_cleans_everything(clean_machine):
    lab = clean_machine
    proc = subprocess.Popen([TENGIG, "lab", "up"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    # Kill it once the pool daemon is running: namespaces, veths, a FUSE daemon and mounts exist.
    while time.monotonic() < deadline:
        try:
            if "zfs-fuse" in json.loads(lab.paths.state_file.read_text()).get("pids", {}):
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    found = residue.scan(lab.runner, lab.paths)
    assert found.namespaces and any(comm == "zfs-fuse" for _, comm in found.processes), found.describe()
    assert main(["lab", "down"]) == 0
    left = residue.scan(lab.runner, lab.paths)
    assert left.empty(), left.describe()


def test_up_refuses_while_a_lab_is_here(clean_machine, capsys):
    lab = clean_machine
    lab.up(build_spec(bare=True))
    assert main(["lab", "up", "--bare"]) == 1
    assert "run `tengig lab down` first" in capsys.readouterr().err
    lab.down()


def test_bare_lab_has_cables_and_no_addresses(clean_machine):
    lab = clean_machine
    lab.up(build_spec(bare=True))
    st = lab_status(lab)
    assert len(st.links) == 3 and all(link.ok for link in st.links)
    assert all(port.addresses == [] for link in st.links for port in link.ports)
    assert st.pool is None and st.share is None and st.processes == {}
    lab.down()


@pytest.mark.parametrize(
    "args, field",
    [
        (["--link", "desk-printer=1g"], "link 'desk-printer=1g': unknown host 'printer'"),
        (["--link", "desk-nas=1x"], "link 'desk-nas=1x'"),
        (["--link", "desk-nas"], "HOST-HOST=RATE"),
        (["--pool-size", "900T"], "pool_size: "),
        (["--pool-size", "lots"], "--pool-size"),
        (["--mtu", "99999"], "mtu"),
        (["--slow-members", "1"], "--slow-members: needs --slow-pool"),
        (["--slow-pool", "50", "--slow-members", "2"], "--slow-members: 2 is more than the pool's 1 member(s): "
                                                       "raise --pool-members"),
    ],
)
def test_bad_input_is_a_clear_error_and_leaves_nothing(clean_machine, capsys, args, field):
    assert main(["lab", "up", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and field in err
    assert residue.scan(clean_machine.runner, clean_machine.paths).empty()


def test_slow_pool_throttles_one_of_two_members(clean_machine):
    lab = clean_machine
    lab.up(build_spec(slow_pool_mbps=50, pool_size=512 * 2**20, pool_members=2, slow_members=1))
    st = lab.state()
    backings, members = st.loop_devices[:2], st.loop_devices[2:]
    assert len(members) == 2 and st.cgroup
    limits = Path(st.cgroup, "blkio.throttle.read_bps_device").read_text().splitlines()
    rdev = os.stat(backings[0]).st_rdev
    assert [line.split() for line in limits] == [[f"{os.major(rdev)}:{os.minor(rdev)}", str(50 * 10**6)]]
    listed = lab.runner.run(["zpool", "status", POOL_NAME], timeout=30).stdout
    assert all(os.path.basename(m) in listed for m in members)
    assert str(st.pids["zfs-fuse"]) in Path(st.cgroup, "cgroup.procs").read_text().split()
    assert lab_status(lab).pool["health"] == "ONLINE"
    lab.down()
    assert not Path(st.cgroup).exists()
