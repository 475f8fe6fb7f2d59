"""The stand-in's pools, datasets and SMB shares (a stand-in following docs/truenas-api.md §4, not TrueNAS).

pool.dataset entries carry properties as middlewared shapes them ({"value", "rawvalue", "parsed",
"source"}) and user properties as a dict by key. sharing.smb.create takes the fields of the release
played: before 25.10 ``ro``/``guestok``/``abe`` and purpose NO_PRESET, DEFAULT_SHARE...; from 25.10
``readonly``/``access_based_share_enumeration``/``options`` and purpose DEFAULT_SHARE, LEGACY_SHARE...
(a field of the other release is refused as an unexpected field, as middlewared refuses it).
"""
from __future__ import annotations

import errno
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ...api.exceptions import CallError, ValidationErrors
from ...api.params import validation_errors
from ...units import parse_size
from .seed import StandinSeed

OnOff = Literal["ON", "OFF"]


class UserProperty(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    key: str = Field(pattern=r".*:.*")
    value: str


class DatasetCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*(/[A-Za-z0-9_.:-]+)+$")
    type: Literal["FILESYSTEM", "VOLUME"] = "FILESYSTEM"
    compression: str = "LZ4"
    sync: Literal["STANDARD", "ALWAYS", "DISABLED"] = "STANDARD"
    recordsize: Literal["512", "1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1M",
                        "2M", "4M", "8M", "16M"] = "128K"
    atime: OnOff = "OFF"
    comments: str = ""
    user_properties: list[UserProperty] = []


class SmbCreateBefore2510(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    purpose: Literal["NO_PRESET", "DEFAULT_SHARE", "ENHANCED_TIMEMACHINE", "MULTI_PROTOCOL_NFS",
                     "PRIVATE_DATASETS", "WORM_DROPBOX"] = "DEFAULT_SHARE"
    path: str
    name: str = Field(max_length=80)
    comment: str = ""
    ro: bool = False
    browsable: bool = True
    guestok: bool = False
    abe: bool = False
    enabled: bool = True


class SmbCreateFrom2510(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    purpose: Literal["DEFAULT_SHARE", "LEGACY_SHARE", "TIMEMACHINE_SHARE", "MULTIPROTOCOL_SHARE",
                     "TIME_LOCKED_SHARE", "PRIVATE_DATASETS_SHARE", "EXTERNAL_SHARE",
                     "VEEAM_REPOSITORY_SHARE"] = "DEFAULT_SHARE"
    name: str = Field(max_length=80)
    path: str
    enabled: bool = True
    comment: str = ""
    readonly: bool = False
    browsable: bool = True
    access_based_share_enumeration: bool = False
    options: dict[str, Any] | None = None


# The properties pool.dataset.create sets only when asked (TrueNAS 25.10's model: compression defaults to INHERIT,
# recordsize, atime and sync are NotRequired): a child created without them inherits its parent's.
SPEED_PROPERTIES = ("compression", "sync", "recordsize", "atime")


def _prop(value: str, raw: str, parsed: Any, source: str = "LOCAL") -> dict[str, Any]:
    return {"value": value, "rawvalue": raw, "parsed": parsed, "source": source, "source_info": None}


class StorageState:
    def __init__(self, seed: StandinSeed, *, smb_from_25_10: bool):
        self.pools = {p.name: p.size_bytes for p in seed.pools}
        self.datasets: dict[str, dict[str, Any]] = {}
        for pool in seed.pools:
            self.datasets[pool.name] = self._dataset(DatasetCreate.model_construct(
                name=pool.name, type="FILESYSTEM", compression="LZ4", sync="STANDARD", recordsize="128K",
                atime="OFF", user_properties=[]))
        self.shares: dict[int, dict[str, Any]] = {}
        self.smb_config: dict[str, Any] = {"id": 1, "multichannel": False}  # TrueNAS's default: off
        self._next_share = 1
        # properties only zfs.dataset.update sets (primarycache): not in pool.dataset.query's entries
        self.zfs_properties: dict[str, dict[str, str]] = {}
        self.smb_model: type[BaseModel] = SmbCreateFrom2510 if smb_from_25_10 else SmbCreateBefore2510

    def _dataset(self, spec: DatasetCreate) -> dict[str, Any]:
        pool = spec.name.split("/")[0]
        size = parse_size(spec.recordsize)
        return {
            "id": spec.name, "name": spec.name, "pool": pool, "type": spec.type, "mountpoint": f"/mnt/{spec.name}",
            "compression": _prop(spec.compression, spec.compression.lower(), spec.compression.lower()),
            "sync": _prop(spec.sync, spec.sync.lower(), spec.sync.lower()),
            "recordsize": _prop(spec.recordsize, str(size), size),
            "atime": _prop(spec.atime, spec.atime.lower(), spec.atime == "ON"),
            "compressratio": _prop("1.00", "1.00", 1.0, "NONE"),
            "used": _prop("0", "0", 0, "NONE"), "available": _prop("0", "0", 0, "NONE"),
            "user_properties": {p.key: _prop(p.value, p.value, p.value) for p in spec.user_properties},
            "children": [],
        }

    def query_datasets(self) -> list[dict[str, Any]]:
        out = []
        for name in sorted(self.datasets):
            entry = dict(self.datasets[name])
            if name in self.pools:  # the pool's root dataset carries the pool's space
                used = 0
                entry["used"] = _prop(str(used), str(used), used, "NONE")
                entry["available"] = _prop(str(self.pools[name]), str(self.pools[name]), self.pools[name], "NONE")
            out.append(entry)
        return out

    def query_pools(self) -> list[dict[str, Any]]:
        """pool.query entries (the fields tengig reads, named and shaped as middlewared's PoolEntry)."""
        return [{"id": index, "name": name, "guid": str(1000 + index), "path": self.datasets[name]["mountpoint"],
                 "status": "ONLINE", "healthy": True, "size": size}
                for index, (name, size) in enumerate(sorted(self.pools.items()), start=1)]

    def update_properties(self, name: str, data: dict[str, Any]) -> dict[str, Any]:
        """zfs.dataset.update: {"properties": {"primarycache": {"value": "metadata"}}}."""
        if name not in self.datasets:
            raise CallError(f"{name} does not exist", errno.ENOENT)
        for prop, change in (data.get("properties") or {}).items():
            self.zfs_properties.setdefault(name, {})[prop] = str(change.get("value"))
        return self.datasets[name]

    def create_dataset(self, data: Any) -> dict[str, Any]:
        try:
            spec = DatasetCreate.model_validate(data)
        except pydantic.ValidationError as exc:
            raise validation_errors(exc, prefix="pool_dataset_create") from None
        parent = spec.name.rsplit("/", 1)[0]
        if spec.name in self.datasets:
            raise ValidationErrors.one("pool_dataset_create.name", f"Path {spec.name} already exists")
        if parent not in self.datasets:
            raise ValidationErrors.one("pool_dataset_create.name", f"Parent dataset {parent} does not exist")
        entry = self._dataset(spec)
        for prop in SPEED_PROPERTIES:  # not given: inherited from the parent, as TrueNAS's create leaves them
            if prop not in spec.model_fields_set:
                entry[prop] = {**self.datasets[parent][prop], "source": "INHERITED"}
        self.datasets[spec.name] = entry
        return self.datasets[spec.name]

    def delete_dataset(self, name: str, options: dict[str, Any]) -> bool:
        if name not in self.datasets or name in self.pools:
            raise CallError(f"{name} does not exist (or is a pool's root dataset)", errno.ENOENT)
        children = [d for d in self.datasets if d.startswith(f"{name}/")]
        if children and not options.get("recursive"):
            raise CallError(f"{name} has children ({', '.join(children)}); use recursive", errno.EBUSY)
        for child in [*children, name]:
            del self.datasets[child]
        return True

    def create_share(self, data: Any) -> dict[str, Any]:
        try:
            spec = self.smb_model.model_validate(data)
        except pydantic.ValidationError as exc:
            raise validation_errors(exc, prefix="sharingsmb_create") from None
        errors = ValidationErrors()
        if any(s["name"].lower() == spec.name.lower() for s in self.shares.values()):
            errors.add("sharingsmb_create.name", "Share with this name already exists.")
        if not any(d["mountpoint"] == spec.path for d in self.query_datasets()):
            errors.add("sharingsmb_create.path", f"{spec.path}: path does not exist (not a dataset mountpoint)")
        if errors:
            raise errors
        share = {"id": self._next_share, **spec.model_dump(), "locked": False}
        if "options" in share and share["options"] is None:
            share["options"] = {}   # TrueNAS answers the preset's options as a dict, never null
        self.shares[self._next_share] = share
        self._next_share += 1
        return share

    def delete_share(self, share_id: int) -> bool:
        if self.shares.pop(share_id, None) is None:
            raise CallError(f"sharing.smb {share_id} does not exist", errno.ENOENT)
        return True

    def update_smb_config(self, data: dict[str, Any]) -> dict[str, Any]:
        """smb.update: only the fields the stand-in plays (multichannel), each a bool."""
        for key, value in data.items():
            if key != "multichannel" or not isinstance(value, bool):
                raise CallError(f"smb_update.{key}: the stand-in plays only multichannel (a bool)", errno.EINVAL)
        self.smb_config.update(data)
        return dict(self.smb_config)
