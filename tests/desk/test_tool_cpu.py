"""The desktop says how much CPU its tools used (issue 26, item 4): the real `tengig client join` against a
scripted NAS (hostile_nas.py) that asks for iperf3 against an iperf3 server on loopback and for copies through
a directory standing for a mounted share. With the instruction's ``cpu`` the answer carries the tool's CPU
time (iperf3: its rusage as a child; the mounted copy: the copying thread's) and the CPUs' worth the desktop
may use; without it (a NAS of an earlier tengig, which refuses keys it does not know) neither is sent."""
from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

from tengig.backends.linux.cgroup_cpu import locate_cpu_cgroup
from tengig.desk.tool_cpu import children_cpu, cpus_available, thread_cpu
from tengig.runner import Runner
from tengig.units import MiB

from .hostile_nas import HostileNas

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "cgroup"
SMB = {"server": "127.0.0.1", "share": "share", "size": 4 * MiB}
REMOTE = "tengig-scratch-1-1-desk\\desk"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_each_answer_carries_its_tools_cpu_when_the_nas_asks_and_only_then(tmp_path):
    mount = tmp_path / "share"
    (mount / "tengig-scratch-1-1-desk").mkdir(parents=True)
    port = _free_port()
    server = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    iperf3 = {"server": "127.0.0.1", "port": port, "streams": 1, "seconds": 1, "omit": 0, "reverse": False}
    try:
        with HostileNas([("iperf3", {**iperf3, "cpu": True}),
                         ("smb", {**SMB, "op": "prepare", "remote": REMOTE}),
                         ("smb", {**SMB, "op": "put", "remote": REMOTE + "\\f0.dat", "cpu": True}),
                         ("smb", {**SMB, "op": "get", "remote": REMOTE + "\\f0.dat", "cpu": True}),
                         ("smb", {**SMB, "op": "get", "remote": REMOTE + "\\f0.dat"})]) as nas:
            done = nas.join(tmp_path, "--mount", str(mount), "--workdir", str(tmp_path))
    finally:
        server.kill()
        server.wait()
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    tested, prepared, written, read, unasked = (nas.submitted[i] for i in range(1, 6))
    assert tested["exit_code"] == 0, tested["stderr"]
    for sub in (tested, written, read):
        assert sub["cpu_seconds"] > 0 and sub["cpus"] > 0, sub  # iperf3 sent a second's worth; 4 MiB were copied
        assert sub["cpus"] <= os.cpu_count()
    for sub in (prepared, unasked):
        assert "cpu_seconds" not in sub and "cpus" not in sub, sub


def test_a_childs_cpu_is_its_own_and_a_threads_is_its_own():
    busy = ["python3", "-c", "sum(range(3 * 10**6))"]
    with children_cpu() as working:
        Runner().run(busy, timeout=60)
    with children_cpu() as idle:
        Runner().run(["sleep", "0.2"], timeout=60)
    assert working.seconds > idle.seconds >= 0
    with thread_cpu() as counted:
        sum(range(10**6))
    assert counted.seconds > 0


def test_the_desktops_cpus_are_its_cgroups_limit_when_lower():
    files = {"/proc/self/cgroup": (FIX / "proc-cgroup-v1-hybrid.txt").read_text(),
             "/sys/fs/cgroup/cpu,cpuacct/tengig-rec-held/cpu.stat": "nr_periods 0\n",
             "/sys/fs/cgroup/cpu,cpuacct/tengig-rec-held/cpu.cfs_quota_us": "30000\n",
             "/sys/fs/cgroup/cpu,cpuacct/tengig-rec-held/cpu.cfs_period_us": "100000\n"}
    found = locate_cpu_cgroup(lambda *paths: [files[p] for p in paths] if all(p in files for p in paths) else None,
                              "/proc/self/cgroup")
    assert found is not None and found.limit_cores == 0.3
    assert 0 < cpus_available() <= os.cpu_count()  # this test's own process: its CPUs, or less
