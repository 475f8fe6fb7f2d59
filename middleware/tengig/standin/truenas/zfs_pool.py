"""The stand-in's datasets on a real ZFS pool (the lab's zfs-fuse pool): pool.query, pool.dataset.* and
zfs.dataset.update run the zfs CLI, so a dataset made through the API is really made and mounted, as
TrueNAS makes it with libzfs (a stand-in following docs/truenas-api.md §4, not TrueNAS). SMB shares stay
in memory (StorageState): a test adds the share its Samba serves. Entries are shaped as storage.py shapes
them, from ``zfs get -Hp``.
"""
from __future__ import annotations

import errno
import time
from typing import Any

import pydantic

from ...api.exceptions import CallError, ValidationErrors
from ...api.params import validation_errors
from ...runner import Runner
from .seed import StandinSeed
from .storage import DatasetCreate, StorageState, _prop

# No sync: zfs-fuse's pool (version 23) predates the property; its writes are what sync=standard means.
PROPERTIES = ("type", "mountpoint", "used", "available", "compression", "recordsize", "atime", "compressratio")
USER_PROPERTY = "tengig:scratch"   # the one user property read back (tengig's scratch tag)
T = 60
DESTROY_TRIES = 6


class ZfsPoolStorage(StorageState):
    def __init__(self, seed: StandinSeed, *, smb_from_25_10: bool, runner: Runner | None = None):
        super().__init__(seed, smb_from_25_10=smb_from_25_10)
        self.runner = runner or Runner()
        self.datasets = {}   # read from the pool on each query

    def _zfs(self, *args: str, check: bool = True):
        return self.runner.run(["zfs", *args], timeout=T, check=check)

    def _entries(self) -> dict[str, dict[str, Any]]:
        names = ",".join(PROPERTIES + (USER_PROPERTY,))
        done = self._zfs("get", "-Hp", "-r", "-o", "name,property,value,source", names,
                         *sorted(self.pools))
        rows: dict[str, dict[str, tuple[str, str]]] = {}
        for line in done.stdout.splitlines():
            name, prop, value, source = (line.split("\t") + ["", "", "", ""])[:4]
            rows.setdefault(name, {})[prop] = (value, source)
        return {name: self._entry(name, props) for name, props in rows.items()}

    @staticmethod
    def _entry(name: str, props: dict[str, tuple[str, str]]) -> dict[str, Any]:
        def word(prop: str) -> dict[str, Any]:
            value, source = props.get(prop, ("", "NONE"))
            return _prop(value.upper(), value, value, source.split(" ")[0].upper() or "NONE")

        def number(prop: str) -> dict[str, Any]:
            value, source = props.get(prop, ("0", "NONE"))
            parsed = int(value) if value.isdigit() else value
            return _prop(value, value, parsed, source.split(" ")[0].upper() or "NONE")

        user = props.get(USER_PROPERTY, ("-", "-"))
        entry = {
            "id": name, "name": name, "pool": name.split("/")[0], "type": "FILESYSTEM",
            "mountpoint": props.get("mountpoint", ("", ""))[0] or None,
            "compression": word("compression"), "sync": _prop("STANDARD", "standard", "standard", "DEFAULT"),
            "atime": word("atime"),
            "recordsize": number("recordsize"), "used": number("used"), "available": number("available"),
            "compressratio": _prop(props.get("compressratio", ("1.00x", ""))[0],
                                   props.get("compressratio", ("1.00x", ""))[0],
                                   props.get("compressratio", ("1.00x", ""))[0].rstrip("x"), "NONE"),
            "user_properties": ({USER_PROPERTY: _prop(user[0], user[0], user[0])} if user[1] == "local" else {}),
            "children": [],
        }
        return entry

    def query_datasets(self) -> list[dict[str, Any]]:
        return [entry for _, entry in sorted(self._entries().items())]

    def query_pools(self) -> list[dict[str, Any]]:
        entries = self._entries()
        return [{"id": index, "name": name, "guid": str(1000 + index), "path": entries[name]["mountpoint"],
                 "status": "ONLINE", "healthy": True}
                for index, name in enumerate(sorted(self.pools), start=1) if name in entries]

    def create_dataset(self, data: Any) -> dict[str, Any]:
        try:
            spec = DatasetCreate.model_validate(data)
        except pydantic.ValidationError as exc:
            raise validation_errors(exc, prefix="pool_dataset_create") from None
        entries = self._entries()
        parent = spec.name.rsplit("/", 1)[0]
        if spec.name in entries:
            raise ValidationErrors.one("pool_dataset_create.name", f"Path {spec.name} already exists")
        if parent not in entries:
            raise ValidationErrors.one("pool_dataset_create.name", f"Parent dataset {parent} does not exist")
        given = spec.model_fields_set  # what is not given inherits the parent's (storage.SPEED_PROPERTIES)
        if "sync" in given and spec.sync != "STANDARD":
            raise CallError(f"sync={spec.sync}: this pool (zfs-fuse) writes only as sync=standard", errno.EINVAL)
        options = []
        for prop, value in (("compression", spec.compression.lower()), ("recordsize", spec.recordsize),
                            ("atime", spec.atime.lower())):
            if prop in given:
                options += ["-o", f"{prop}={value}"]
        for prop in spec.user_properties:
            options += ["-o", f"{prop.key}={prop.value}"]
        done = self._zfs("create", *options, spec.name, check=False)
        if done.returncode != 0:
            said = (done.stderr.strip() or f"zfs create exited {done.returncode}").splitlines()[-1]
            if "recordsize" in said:   # zfs-fuse's pool (v23) has no large blocks: as TrueNAS refuses a size
                raise ValidationErrors.one("pool_dataset_create.recordsize", f"{spec.recordsize}: {said}")
            raise CallError(f"Failed to create dataset {spec.name}: {said}", errno.EFAULT)
        return self._entries()[spec.name]

    def delete_dataset(self, name: str, options: dict[str, Any]) -> bool:
        if name in self.pools or name not in self._entries():
            raise CallError(f"{name} does not exist (or is a pool's root dataset)", errno.ENOENT)
        recursive = ["-r"] if options.get("recursive") else []
        for attempt in range(DESTROY_TRIES):
            # zfs-fuse holds a just-closed dataset "busy" for a while (backends/linux/zfs.py ZfsCli.destroy
            # does the same): TrueNAS's libzfs unmounts it by force, so does this, from the second try.
            done = self._zfs("destroy", *recursive, *(["-f"] if attempt else []), name, check=False)
            if done.returncode == 0:
                return True
            if "busy" not in done.stderr:
                break
            time.sleep(0.5)
        raise CallError(f"Failed to delete dataset: {done.stderr.strip()}", errno.EBUSY)

    def update_properties(self, name: str, data: dict[str, Any]) -> dict[str, Any]:
        if name not in self._entries():
            raise CallError(f"{name} does not exist", errno.ENOENT)
        for prop, change in (data.get("properties") or {}).items():
            self._zfs("set", f"{prop}={change.get('value')}", name)
        return self._entries()[name]
