"""Find and remove everything a lab leaves on the machine, with or without its state file.

Each kind of thing is found by what the lab always gives it: the `tg-` prefix (namespaces, pools),
the lab's directories (mounts, loop device back-files), the cgroup name, and the TENGIG_LAB
environment marker every lab process carries (readable in /proc/PID/environ even after a crash), whose value
is the lab's instance (instance.py): a second lab's processes beside this one are not this lab's.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CommandError
from ..runner import Runner
from .paths import LabPaths
from .instance import cgroup_name, instance
from .plan import NETNS_PREFIX, POOL_NAME
from .pool import BLKIO_ROOT
from .state import MARKER_ENV

T = 30
KSTAT_MOUNT = "/zfs-kstat"


@dataclass
class Residue:
    processes: list[tuple[int, str]] = field(default_factory=list)  # (pid, comm)
    namespaces: list[str] = field(default_factory=list)
    root_links: list[str] = field(default_factory=list)
    mounts: list[str] = field(default_factory=list)
    loop_devices: list[str] = field(default_factory=list)
    cgroups: list[str] = field(default_factory=list)
    pools: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def empty(self) -> bool:
        return not any(getattr(self, f) for f in self.__dataclass_fields__)

    def describe(self) -> str:
        parts = [f"{name}: {', '.join(map(str, items))}" for name, items in self.__dict__.items() if items]
        return "; ".join(parts) or "nothing"


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return "?"


def marked_processes() -> list[int]:
    me = {os.getpid(), os.getppid()}
    found = []
    needle = f"{MARKER_ENV}={instance()}".encode()  # this lab's, not a second lab's beside it
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in me:
            continue
        try:
            env = Path(entry.path, "environ").read_bytes()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            found.append(int(entry.name))
    return found


def lab_namespaces(runner: Runner) -> list[str]:
    out = runner.run(["ip", "-j", "netns", "list"], timeout=T).stdout.strip()
    names = [n["name"] for n in json.loads(out)] if out else []
    return sorted(n for n in names if n.startswith(NETNS_PREFIX))


def namespace_processes(runner: Runner, namespaces: list[str]) -> list[int]:
    pids: list[int] = []
    for ns in namespaces:
        done = runner.run(["ip", "netns", "pids", ns], timeout=T, check=False)
        pids += [int(p) for p in done.stdout.split() if p.isdigit()]
    return pids


def lab_mounts(paths: LabPaths) -> list[str]:
    roots = (str(paths.run) + "/", str(paths.data) + "/")
    found = []
    with open("/proc/self/mounts") as fh:
        for line in fh:
            target = line.split()[1].replace("\\040", " ")
            if target.startswith(roots):
                found.append(target)
    return found


def stale_kstat_mount() -> list[str]:
    """zfs-fuse's kstat mount, left behind only when the daemon was killed without cleanup."""
    with open("/proc/self/mounts") as fh:
        mounted = any(line.split()[1] == KSTAT_MOUNT for line in fh)
    alive = any(_comm(pid) == "zfs-fuse" for pid in marked_processes())  # this lab's daemon
    return [KSTAT_MOUNT] if mounted and not alive else []


def lab_loop_devices(runner: Runner, paths: LabPaths) -> list[str]:
    out = runner.run(["losetup", "-J", "-l"], timeout=T, check=False).stdout.strip()
    if not out:
        return []
    devices = json.loads(out).get("loopdevices", [])
    root = str(paths.data) + "/"
    backings = [d["name"] for d in devices if (d.get("back-file") or "").startswith(root)]
    # a slowed pool's members are loops over those loops: listed first, so they are detached first
    members = [d["name"] for d in devices if (d.get("back-file") or "") in backings]
    return members + backings


def lab_pools(runner: Runner) -> list[str]:
    done = runner.run(["zpool", "list", "-H", "-o", "name"], timeout=T, check=False)
    if done.returncode != 0:
        return []  # no daemon: zfs-fuse keeps no pool without one (cachefile=none)
    return [n for n in done.stdout.split() if n == POOL_NAME]


def scan(runner: Runner, paths: LabPaths) -> Residue:
    namespaces = lab_namespaces(runner)
    pids = sorted(set(marked_processes()) | set(namespace_processes(runner, namespaces)))
    root_links = [
        link["ifname"]
        for link in json.loads(runner.run(["ip", "-j", "link", "show"], timeout=T).stdout or "[]")
        if link["ifname"].startswith(("tg-", "eth-tg"))
    ]
    files = [str(p) for p in sorted(paths.netns_etc.glob(f"{NETNS_PREFIX}*"))]
    files += [str(p) for p in (paths.state_file, *sorted(paths.data.glob("pool*.img"))) if p.exists()]
    cgroup = BLKIO_ROOT / cgroup_name()
    return Residue(
        processes=[(pid, _comm(pid)) for pid in pids],
        namespaces=namespaces,
        root_links=root_links,
        mounts=lab_mounts(paths) + stale_kstat_mount(),
        loop_devices=lab_loop_devices(runner, paths),
        cgroups=[str(cgroup)] if cgroup.exists() else [],
        pools=lab_pools(runner),
        files=files,
    )


ZFS_FUSE_GRACE_EXPORTED_S = 0.5


def stop_processes(pids: list[int], *, grace: float) -> list[int]:
    """TERM all at once, wait up to `grace` s, KILL the rest. Returns the PIDs that had to be killed."""
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    remaining = list(pids)
    while remaining and time.monotonic() < deadline:
        time.sleep(0.05)
        remaining = [p for p in remaining if alive(p)]
    for pid in remaining:
        _signal(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while any(alive(p) for p in remaining) and time.monotonic() < deadline:
        time.sleep(0.05)
    return remaining


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def alive(pid: int) -> bool:
    """True while the process runs; a zombie counts as gone (and is reaped if it is our child)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes once its parent reaps it; we may be that parent.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    if state == "Z":
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        return False
    return True


def clean(runner: Runner, paths: LabPaths) -> list[str]:
    """Remove everything scan() finds, in an order that lets each step succeed. Returns notes on
    anything that needed force (a KILL, a lazy unmount) so callers can report it."""
    notes: list[str] = []
    found = scan(runner, paths)
    daemon = [pid for pid, comm in found.processes if comm == "zfs-fuse"]
    others = [pid for pid, comm in found.processes if comm != "zfs-fuse"]
    # 1. Everything that uses the pool or the namespaces (smbd, iperf3, fio, smbnetfs, exec'd shells).
    killed = stop_processes(others, grace=5)
    if killed:
        notes.append(f"killed after 5 s: {killed}")
    # 2. FUSE client mounts under the lab dirs (smbnetfs), then the pool, then the daemon.
    for target in lab_mounts(paths):
        if not target.startswith(str(paths.mnt / POOL_NAME)):
            runner.run(["umount", "-l", target], timeout=T, check=False)
    exported = True
    for pool in found.pools:
        try:
            runner.run(["zpool", "export", "-f", pool], timeout=60)
        except CommandError as exc:
            exported = False
            notes.append(f"zpool export {pool} failed, stopping the daemon anyway: {exc.message}")
    if exported:
        # Every pool is exported, so the daemon holds nothing to write: its own shutdown on TERM waits out its
        # sync threads' timers (3-5 s here, for every lab the tests take down), so it gets half a second.
        stop_processes(daemon, grace=ZFS_FUSE_GRACE_EXPORTED_S)
    else:
        killed = stop_processes(daemon, grace=12)
        if killed:
            notes.append(f"zfs-fuse killed after 12 s: {killed}")
    # 3. Whatever is still mounted (a killed daemon leaves its mounts), loop devices, cgroup.
    for target in sorted(lab_mounts(paths) + stale_kstat_mount(), key=len, reverse=True):
        runner.run(["umount", "-l", target], timeout=T, check=False)
        notes.append(f"lazy-unmounted {target}")
    for dev in lab_loop_devices(runner, paths):
        runner.run(["losetup", "-d", dev], timeout=T, check=False)
    cgroup = BLKIO_ROOT / cgroup_name()
    if cgroup.exists():
        _remove_cgroup(cgroup)
    # 4. Namespaces (their veths go with them), their /etc/netns dirs, the lab's files.
    for ns in lab_namespaces(runner):
        runner.run(["ip", "netns", "del", ns], timeout=T, check=False)
    for etc in paths.netns_etc.glob(f"{NETNS_PREFIX}*"):
        shutil.rmtree(etc, ignore_errors=True)
    shutil.rmtree(paths.run, ignore_errors=True)
    shutil.rmtree(paths.data, ignore_errors=True)
    return notes


def _remove_cgroup(cgroup: Path) -> None:
    # A cgroup can only go once empty: hand any remaining task back to the root group first.
    try:
        for pid in (cgroup / "cgroup.procs").read_text().split():
            (BLKIO_ROOT / "cgroup.procs").write_text(pid)
    except OSError:
        pass
    deadline = time.monotonic() + 5
    while True:
        try:
            cgroup.rmdir()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
