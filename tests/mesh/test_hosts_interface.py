"""bench.hosts.Hosts is explicit: timeout, check, env, cancel (run) and log_name, env, stdin_pipe
(spawn), the same for every implementation; how the lab enters a namespace (nsenter or `ip netns
exec`) is the lab's own choice, made where its Hosts are built, never an option a caller passes.
Pure: a recording lab and runner stand in for the real ones."""
from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from tengig.bench.context import BenchContext
from tengig.lab.hosts import LabHosts
from tengig.lab.mesh_adapter import LabNetHosts
from tengig.mesh.systems import LocalHosts as MeshLocalHosts
from tengig.runner import Completed
from tengig.systems.local_bench import LocalHosts as BenchLocalHosts


class RecordingLab:
    """The lab's own API (Lab.run / Lab.spawn), recorded: host, argv and options."""

    def __init__(self):
        self.calls = []

    def require_up(self):
        return SimpleNamespace(spec=SimpleNamespace(nas="nas"))

    def run(self, host, argv, *, timeout, **options):
        self.calls.append(("run", host, list(argv), options))
        return Completed(tuple(argv), 0, "", "", 0.0)

    def spawn(self, host, argv, *, log_name, **options):
        self.calls.append(("spawn", host, list(argv), options))
        return SimpleNamespace()


class RecordingRunner:
    def __init__(self):
        self.calls = []

    def run(self, argv, *, timeout, check=True, env=None, cancel=None):
        self.calls.append(("run", list(argv), {"check": check, "env": env, "cancel": cancel}))
        return Completed(tuple(argv), 0, "", "", 0.0)

    def spawn(self, argv, *, log_path, env=None, stdin_pipe=False, stdout_pipe=False):
        self.calls.append(("spawn", list(argv), {"env": env, "stdin_pipe": stdin_pipe, "stdout_pipe": stdout_pipe}))
        return SimpleNamespace()


def _modes(lab):
    return [(kind, host, options["netns_mode"]) for kind, host, _, options in lab.calls]


def test_the_lab_benchmark_hosts_enter_the_nas_with_nsenter_and_the_clients_with_ip_netns_exec():
    lab = RecordingLab()
    ctx = BenchContext(LabHosts(lab))
    ctx.run("nas", ["zfs", "list"], timeout=5)
    ctx.run("desk", ["iperf3", "-c", "x"], timeout=5, check=False, env={"A": "1"})
    ctx.spawn("nas", ["iperf3", "-s"], log_name="s.log")
    ctx.spawn("desk", ["fio", "--server"], log_name="f.log", stdin_pipe=True)
    ctx.spawn("nas", ["iperf3", "-s", "-J"], log_name="j.log", stdout_pipe=True)
    assert _modes(lab)[:4] == [("run", "nas", "nsenter"), ("run", "desk", "exec"),
                           ("spawn", "nas", "nsenter"), ("spawn", "desk", "exec")]
    assert lab.calls[1][3] == {"check": False, "env": {"A": "1"}, "cancel": ctx.cancel, "netns_mode": "exec"}
    assert lab.calls[3][3]["stdin_pipe"] is True and lab.calls[4][3]["stdout_pipe"] is True


def test_the_lab_network_hosts_use_ip_netns_exec_everywhere():
    lab = RecordingLab()
    ctx = BenchContext(LabNetHosts(lab))
    ctx.run("nas", ["getent", "hosts", "desk"], timeout=5)
    ctx.run("desk", ["ping", "nas"], timeout=5)
    assert _modes(lab) == [("run", "nas", "exec"), ("run", "desk", "exec")]


def test_a_view_through_other_lab_hosts_keeps_the_contexts_cancel_token_and_raw_log():
    """How the lab's smbnetfs mount runs on a client in the root mount namespace (lab.hosts)."""
    lab = RecordingLab()
    ctx = BenchContext(LabHosts(lab))
    quiet = ctx.uncancellable()
    view = quiet.through(LabHosts(lab, root_mounts=("nas", "desk")))
    view.run("desk", ["smbnetfs", "/mnt"], timeout=30, env={"HOME": "/h"}, tool="smbnetfs")
    ctx.run("desk", ["fio", "--client"], timeout=5)
    assert _modes(lab) == [("run", "desk", "nsenter"), ("run", "desk", "exec")]
    assert lab.calls[0][3]["cancel"] is quiet.cancel and quiet.cancel is not ctx.cancel
    assert [r.tool for r in ctx.raw] == ["smbnetfs", "fio"]  # one raw log


@pytest.mark.parametrize("hosts", [
    lambda runner, tmp: MeshLocalHosts(runner, logs=tmp),
    lambda runner, tmp: BenchLocalHosts("here", runner, log_dir=tmp),
], ids=["mesh-local", "bench-local"])
def test_local_hosts_take_the_generic_options_only(hosts, tmp_path):
    runner = RecordingRunner()
    local = hosts(runner, tmp_path)
    cancel = threading.Event()
    local.run("here", ["true"], timeout=5, check=False, env={"A": "1"}, cancel=cancel)
    local.spawn("here", ["sleep", "1"], log_name="sleep", env={"B": "2"}, stdin_pipe=True)
    local.spawn("here", ["iperf3", "-s"], log_name="iperf3", stdout_pipe=True)
    assert runner.calls == [("run", ["true"], {"check": False, "env": {"A": "1"}, "cancel": cancel}),
                            ("spawn", ["sleep", "1"], {"env": {"B": "2"}, "stdin_pipe": True, "stdout_pipe": False}),
                            ("spawn", ["iperf3", "-s"], {"env": None, "stdin_pipe": False, "stdout_pipe": True})]
    with pytest.raises(TypeError):
        local.run("here", ["true"], timeout=5, netns_mode="nsenter")
    with pytest.raises(TypeError):
        local.spawn("here", ["true"], log_name="x", netns_mode="nsenter")
