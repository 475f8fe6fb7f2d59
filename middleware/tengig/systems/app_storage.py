"""The app's scratch datasets: made and destroyed through TrueNAS's API (TrueNASScratch), and seen by the
container only through the host path mount of the pools' directory. Before anything is made on a pool,
its mountpoint must be visible in the container (else the compose file lacks the mount); after a
dataset is made, its mountpoint must be visible too (else the mount does not propagate what TrueNAS
mounts later: ``rslave``), and the dataset is destroyed again before the error is said. TrueNAS refusing
a call to the key (its user lacks a role) is said with the key file and what to give it.
"""
from __future__ import annotations

import errno
import os
from pathlib import PurePosixPath

from ..backends.scratch import PoolSpace, ScratchInfo
from ..backends.truenas import TrueNASError, TrueNASScratch
from ..backends.truenas.connection import KEY_FILE_ENV, key_file_named
from ..errors import ValidationError

MOUNT_HINT = ("the app's compose file needs the host path mount of the pools' directory at the same path with "
              "propagation rslave (volumes: type bind, source /mnt, target /mnt, bind.propagation rslave; "
              "`tengig app compose` writes it, --pools-dir for another directory): edit the app and add it")
REFUSED = (errno.EACCES, errno.EPERM)


def visible(path: str) -> bool:
    """``path`` is a mountpoint in this container (a dataset TrueNAS mounted, seen through the host mount)."""
    return os.path.ismount(path)


class AppScratch:
    """bench.scratch.ScratchStorage for the app: TrueNASScratch, with what the container sees checked."""

    def __init__(self, scratch: TrueNASScratch, mountpoints: dict[str, str]):
        self.scratch = scratch
        self.mountpoints = mountpoints

    def _refused(self, exc: TrueNASError, what: str) -> ValidationError:
        return ValidationError.one(
            KEY_FILE_ENV, f"TrueNAS refused {exc.method} ({what}) to the API key in {key_file_named()}: {exc}; the key's user "
            "needs the roles to manage datasets (its private zfs.dataset.update needs a full administrator: "
            "Credentials > Users, the key's user with the role FULL_ADMIN), or a key of such a user in that file")

    def _call(self, what: str, function, *args):
        try:
            return function(*args)
        except TrueNASError as exc:
            if exc.errno in REFUSED:
                raise self._refused(exc, what) from exc
            raise

    def _require_pool_visible(self, pool: str) -> None:
        path = self.mountpoints.get(pool, f"/mnt/{pool}")
        if not visible(path):
            raise ValidationError.one("pool", f"the app does not see {path}, where TrueNAS mounts pool {pool!r}: "
                                      f"{MOUNT_HINT}")

    def _require_visible(self, info: ScratchInfo) -> ScratchInfo:
        if visible(info.mountpoint):
            return info
        self.scratch.destroy(info.name)
        raise ValidationError.one("pool", f"TrueNAS made {info.name} at {info.mountpoint}, but the app does not see "
                                  f"it there (removed again): {MOUNT_HINT}")

    def space(self, pool: str) -> PoolSpace:
        self._require_pool_visible(pool)
        return self._call("the pool's space", self.scratch.space, pool)

    def find_scratch(self, pool: str) -> list[str]:
        return self._call("tengig's leftover scratch datasets", self.scratch.find_scratch, pool)

    def _made(self, parent: str, what: str, function, *args) -> ScratchInfo:
        try:
            info = self._call(what, function, *args)
        except ValidationError as exc:
            if exc.errors[0][0] == KEY_FILE_ENV:
                raise
            raise ValidationError.one("pool", f"TrueNAS could not make {what} under {parent}: {exc}; make room on the "
                                      "pool or measure another one (pool), and check the pool's state in TrueNAS "
                                      "(Storage)") from exc
        return self._require_visible(info)

    def create_scratch(self, pool: str, tag: str) -> ScratchInfo:
        self._require_pool_visible(pool)
        return self._made(pool, "the scratch dataset", self.scratch.create_scratch, pool, tag)

    def create_scratch_under(self, parent: str, tag: str, *, inherit: bool = False) -> ScratchInfo:
        self._require_pool_visible(PurePosixPath(parent).parts[0])
        return self._made(parent, "the share's scratch dataset",
                          lambda p, t: self.scratch.create_scratch_under(p, t, inherit=inherit), parent, tag)

    def set_primarycache(self, dataset: str, value) -> None:
        self._call("the scratch dataset's primarycache", self.scratch.set_primarycache, dataset, value)

    def destroy(self, dataset: str) -> None:
        self._call("removing the scratch dataset", self.scratch.destroy, dataset)

    def compressratio(self, dataset: str) -> float:
        return self.scratch.compressratio(dataset)

    def dataset_mounted_at(self, path: str) -> str | None:
        return self.scratch.dataset_mounted_at(path)

    def dataset_properties(self, dataset: str) -> dict[str, str]:
        return self._call("the dataset's properties", self.scratch.dataset_properties, dataset)

    def settle_writes(self, pool: str) -> str:
        return self.scratch.settle_writes(pool)
