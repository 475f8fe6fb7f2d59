"""The lab as a Python API: up, down, status, and running programs on its hosts.

    lab = Lab()
    lab.up(build_spec(["desk-nas=1g"]))
    lab.run("desk", ["smbclient", ...], timeout=60)
    lab.down()
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import LabError, TengigError, ValidationError
from ..runner import Completed, Runner
from ..units import GiB, format_size
from . import network, pool, residue, samba
from . import state as state_mod
from .paths import LabPaths
from .plan import POOL_NAME, SHARE_DATASET, SHARE_NAME, LabPlan, netns_name, plan_lab
from .spec import LabSpec
from .instance import instance, require_own_mounts
from .state import MARKER_ENV, LabState

Progress = Callable[[float, str], None]
DISK_RESERVE = 1 * GiB
NETWORK_TOOLS = ("ip", "tc", "ss")
STORAGE_TOOLS = ("zfs-fuse", "zpool", "zfs", "smbd", "pdbedit", "smbclient", "losetup", "useradd")


def _no_progress(percent: float, description: str) -> None:
    pass


class Lab:
    def __init__(self, paths: LabPaths | None = None, runner: Runner | None = None):
        require_own_mounts()
        self.paths = paths or LabPaths()
        self.runner = runner or Runner(extra_env={MARKER_ENV: instance()})

    # -- reading -------------------------------------------------------------------------------
    def state(self) -> LabState | None:
        return state_mod.load(self.paths.state_file)

    def require_up(self) -> LabState:
        st = self.state()
        if st is None or st.phase != "up":
            raise LabError("no lab is up: run `tengig lab up` first")
        return st

    def plan(self) -> LabPlan:
        return plan_lab(self.require_up().spec)

    def netns(self, host: str) -> str:
        return self.plan().netns(host)

    # -- acting on hosts ------------------------------------------------------------------------
    def run(self, host: str, argv: Sequence[str], *, timeout: float, **kwargs) -> Completed:
        return self.runner.run(argv, netns=self.netns(host), timeout=timeout, **kwargs)

    def spawn(self, host: str, argv: Sequence[str], *, log_name: str, **kwargs) -> subprocess.Popen:
        log = self.paths.logs / log_name
        return self.runner.spawn(argv, netns=self.netns(host), log_path=log, **kwargs)

    def smbclient(self, host: str, commands: str, *, timeout: float = 120) -> Completed:
        """Run smbclient's -c script on `host` against the NAS share (resolved by name on the direct link)."""
        st = self.require_up()
        if st.spec.bare:
            raise LabError("a bare lab has no share")
        return self.run(host, samba.smbclient_argv(self.paths, host, st.spec.nas, commands), timeout=timeout)

    @property
    def share_path(self) -> Path:
        st = self.require_up()
        if not st.share_path:
            raise LabError("a bare lab has no share")
        return Path(st.share_path)

    # -- up ---------------------------------------------------------------------------------------
    def preflight(self, spec: LabSpec) -> LabPlan:
        """Everything that can be checked before touching the machine; raises before anything exists."""
        plan = plan_lab(spec)
        if os.geteuid() != 0:
            raise LabError("the lab needs root (network namespaces, mounts, cgroups)")
        tools = NETWORK_TOOLS + (() if spec.bare else STORAGE_TOOLS)
        missing = [t for t in tools if shutil.which(t) is None]
        if missing:
            raise LabError(f"missing tools: {', '.join(missing)}; run `make setup`")
        if not spec.bare:
            disk = _existing_parent(self.paths.data)
            free = shutil.disk_usage(disk).free
            if spec.pool_size > free - DISK_RESERVE:
                raise ValidationError.one(
                    "pool_size",
                    f"{format_size(spec.pool_size)} does not fit: {format_size(free)} free on "
                    f"{disk} and tengig keeps {format_size(DISK_RESERVE)} spare; "
                    "choose a smaller --pool-size",
                )
            if spec.slow_pool_mbps and not (pool.BLKIO_ROOT / "blkio.throttle.read_bps_device").exists():
                raise ValidationError.one("slow_pool_mbps", "this kernel has no cgroup v1 blkio throttling")
        found = residue.scan(self.runner, self.paths)
        if not found.empty():
            raise LabError(f"a lab (or its leftovers) is already here: {found.describe()}; run `tengig lab down` first")
        return plan

    def up(self, spec: LabSpec, progress: Progress = _no_progress) -> LabState:
        plan = self.preflight(spec)
        st = LabState(spec=spec)
        save = lambda: state_mod.save(st, self.paths.state_file)  # noqa: E731
        try:
            self.paths.logs.mkdir(parents=True, exist_ok=True)
            save()
            progress(5, "hosts (network namespaces)")
            network.create_hosts(plan, self.runner, self.paths)
            progress(15, "cables (veth pairs, MTU, tbf shaping, addresses)")
            network.create_cables(plan, self.runner)
            if not spec.bare:
                self._storage(spec, st, save, progress)
            st.phase = "up"
            save()
            progress(100, "lab is up")
            return st
        except BaseException as exc:
            st.phase, st.error = "failed", str(exc)
            save()
            try:
                residue.clean(self.runner, self.paths)
            except TengigError:
                pass  # the original error matters more; `tengig lab down` reports what is left
            raise

    def _storage(self, spec: LabSpec, st: LabState, save: Callable[[], None], progress: Progress) -> None:
        progress(30, f"zfs-fuse (ARC {spec.arc_mib} MiB)")
        self.paths.data.mkdir(parents=True, exist_ok=True)
        st.pids["zfs-fuse"] = pool.start_zfs_fuse(self.runner, self.paths, spec.arc_mib)
        save()
        images = pool.member_images(self.paths, spec.pool_members)
        for image in images:
            with open(image, "wb") as fh:
                fh.truncate(spec.pool_size // spec.pool_members)  # sparse: costs nothing until written
        vdevs = [str(image) for image in images]
        if spec.slow_pool_mbps:
            slowed = spec.throttled_members
            which = "every member" if slowed == spec.pool_members else f"{slowed} of {spec.pool_members} members"
            progress(40, f"slow pool devices ({spec.slow_pool_mbps:g} MB/s on {which}, loop + blkio throttle)")
            loops, st.cgroup = pool.make_member_devices(self.runner, images, spec.slow_pool_mbps, slowed,
                                                        st.pids["zfs-fuse"])
            st.loop_devices = loops
            save()
            vdevs = loops[-len(images):]
        progress(50, f"pool {POOL_NAME} ({format_size(spec.pool_size)}) and dataset {SHARE_DATASET}")
        uid, gid = samba.ensure_unix_user(self.runner, spec.smb_user)
        st.share_path = str(pool.create_pool(self.runner, self.paths, vdevs, uid, gid))
        st.pool = POOL_NAME
        save()
        progress(70, "smbd on nas (private config, own session)")
        conf = samba.write_configs(self.paths, Path(st.share_path), spec.smb_user, spec.smb_password, spec.hosts[1:])
        samba.add_smb_user(self.runner, conf, spec.smb_user, spec.smb_password)
        st.pids["smbd"] = samba.start_smbd(self.runner, self.paths, conf, netns_name(spec.nas))
        save()
        progress(85, "share check from every client host")
        for host in spec.hosts[1:]:
            self.runner.run(
                samba.smbclient_argv(self.paths, host, spec.nas, "ls"), netns=netns_name(host), timeout=30
            )

    # -- down -------------------------------------------------------------------------------------
    def down(self) -> list[str]:
        """Stop and remove everything, from the state file and by prefix; verify nothing is left."""
        notes = residue.clean(self.runner, self.paths)
        left = residue.scan(self.runner, self.paths)
        if not left.empty():
            raise LabError(f"the lab could not be removed completely: {left.describe()}")
        return notes


def _existing_parent(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


__all__ = ["Lab", "SHARE_NAME"]
