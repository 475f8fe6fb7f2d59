"""The lab NAS's storage: a zfs-fuse daemon, a pool on a sparse file (or on a throttled loop
device for --slow-pool), and the dataset the share serves. Recipes in docs/lab.md §4."""
from __future__ import annotations

import os
import time
from pathlib import Path

from ..errors import LabError
from ..runner import Runner
from .paths import LabPaths
from .instance import cgroup_name
from .plan import POOL_NAME, SHARE_DATASET

BLKIO_ROOT = Path("/sys/fs/cgroup/blkio")
T = 30


def start_zfs_fuse(runner: Runner, paths: LabPaths, arc_mib: int) -> int:
    """Start zfs-fuse in the foreground mode (its pidfile option is ignored there: we keep the PID)."""
    proc = runner.spawn(["zfs-fuse", "--no-daemon", "-m", str(arc_mib)], log_path=paths.logs / "zfs-fuse.log")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = (paths.logs / "zfs-fuse.log").read_text(errors="replace")[-500:]
            raise LabError(f"zfs-fuse exited with {proc.returncode} at start (is another zfs-fuse running?): {log}")
        if runner.run(["zpool", "list", "-H"], timeout=T, check=False).returncode == 0:
            return proc.pid
        time.sleep(0.1)
    raise LabError("zfs-fuse did not answer `zpool list` within 15 s")


def make_member_devices(runner: Runner, images: list[Path], mbps: float, throttled: int,
                        zfs_fuse_pid: int) -> tuple[list[str], str]:
    """The pool's members for --slow-pool: per image, a loop device over it (the backing) and the member, a
    second loop device with direct I/O over the backing one. The first ``throttled`` backings are throttled
    by a cgroup v1 blkio group holding zfs-fuse; the others stay fast.

    Two loops, so that a slowed member looks to the kernel like a slow disk: the member loop's own counters
    (/proc/diskstats: busy time, wait per I/O) include the time its requests wait on the throttled backing,
    where a throttle on the member itself would hold requests before they are counted.
    Returns (every loop device, members last, cgroup dir); the members are the last len(images)."""
    if not (BLKIO_ROOT / "blkio.throttle.read_bps_device").exists():
        raise LabError("--slow-pool needs cgroup v1 blkio throttling (/sys/fs/cgroup/blkio), which this kernel lacks")
    cgroup = BLKIO_ROOT / cgroup_name()
    cgroup.mkdir(exist_ok=True)
    backings, members, limits = [], [], []
    for n, image in enumerate(images):
        backing = runner.run(["losetup", "--find", "--show", str(image)], timeout=T).stdout.strip()
        backings.append(backing)
        members.append(runner.run(["losetup", "--find", "--show", "--direct-io=on", backing], timeout=T).stdout.strip())
        if n < throttled:
            rdev = os.stat(backing).st_rdev
            limits.append(f"{os.major(rdev)}:{os.minor(rdev)} {int(mbps * 10**6)}")
    for limit in limits:  # one rule per write: the kernel reads one device per line written
        (cgroup / "blkio.throttle.read_bps_device").write_text(limit)
        (cgroup / "blkio.throttle.write_bps_device").write_text(limit)
    (cgroup / "cgroup.procs").write_text(str(zfs_fuse_pid))
    return backings + members, str(cgroup)


def member_images(paths: LabPaths, members: int) -> list[Path]:
    """The sparse files under the pool's members: pool.img, then pool-1.img, pool-2.img ..."""
    return [paths.pool_image] + [paths.pool_image.with_name(f"pool-{n}.img") for n in range(1, members)]


def create_pool(runner: Runner, paths: LabPaths, vdevs: list[str], owner_uid: int, owner_gid: int) -> Path:
    """Create the pool striped over ``vdevs`` (no cachefile: the daemon must not remember it) and the share
    dataset."""
    mount = paths.mnt / POOL_NAME
    mount.mkdir(parents=True, exist_ok=True)
    runner.run(["zpool", "create", "-f", "-o", "cachefile=none", "-m", str(mount), POOL_NAME, *vdevs], timeout=T)
    runner.run(["zfs", "create", "-o", "compression=off", "-o", "atime=off", SHARE_DATASET], timeout=T)
    share_path = Path(runner.run(["zfs", "get", "-H", "-o", "value", "mountpoint", SHARE_DATASET], timeout=T).stdout.strip())
    os.chown(share_path, owner_uid, owner_gid)
    return share_path


def pool_health(runner: Runner) -> dict | None:
    """{'name','health','used_bytes','free_bytes'} of the lab pool, or None if zfs-fuse does not know it.

    zfs-fuse's `zpool list` has no -p (exact bytes): the byte counts come from `zfs get -Hp`."""
    done = runner.run(["zpool", "list", "-H", "-o", "name,health", POOL_NAME], timeout=T, check=False)
    if done.returncode != 0:
        return None
    name, health = done.stdout.strip().split("\t")
    used, avail = runner.run(
        ["zfs", "get", "-Hp", "-o", "value", "used,available", POOL_NAME], timeout=T
    ).stdout.split()
    return {"name": name, "health": health, "used_bytes": int(used), "free_bytes": int(avail)}
