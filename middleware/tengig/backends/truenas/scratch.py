"""The pool benchmark's scratch dataset through pool.dataset.* (docs/truenas-api.md §4); implements
bench.scratch.ScratchStorage, like backends/linux/zfs.py does with the zfs CLI.

    pool.dataset.create({"name": "tank/tengig-scratch-<tag>", "type": "FILESYSTEM", "compression": "OFF",
                         "sync": "STANDARD", "recordsize": "1M", "atime": "OFF",
                         "user_properties": [{"key": "tengig:scratch", "value": "<tag>"}]})
    pool.dataset.delete("tank/tengig-scratch-<tag>", {"recursive": true})

No quota (ZFS throttles writes near one). primarycache is not in pool.dataset.*: it is set through the
private zfs.dataset.update, as TrueNAS's own middleware does (both 25.04 and 25.10):

    zfs.dataset.update("tank/tengig-scratch-<tag>", {"properties": {"primarycache": {"value": "metadata"}}})

Dataset
properties come back as {"value", "rawvalue", "parsed", "source"} (dedup as "deduplication"); user properties as
a dict keyed by property name.
"""
from __future__ import annotations

import re
from typing import Any

from ..scratch import (
    RECORDSIZES, SCRATCH_PREFIX, SCRATCH_PROPERTY, SPEED_PROPERTIES, PoolSpace, PrimaryCache, ScratchInfo,
    require_scratch,
)
from ...errors import ToolOutputError, ValidationError
from ...names import DATASET_RE
from ...units import parse_size
from .backend import TrueNASBackend

TAG_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
QUERY_NAMES = {"dedup": "deduplication"}  # pool.dataset.query's name where it is not zfs's


def _property(entry: dict[str, Any], name: str) -> Any:
    value = entry.get(name)
    if isinstance(value, dict):
        return value.get("parsed") if value.get("parsed") is not None else value.get("value")
    return value


def _word(entry: dict[str, Any], name: str) -> str:
    """'off', 'lz4': the property's value as zfs prints it (``parsed`` may be a bool, e.g. atime)."""
    value = entry.get(name)
    return str(value.get("value") if isinstance(value, dict) else value).lower()


class TrueNASScratch:
    def __init__(self, backend: TrueNASBackend):
        self.backend = backend

    @staticmethod
    def _check_pool(pool: str) -> None:
        if not isinstance(pool, str) or not DATASET_RE.fullmatch(pool) or "/" in pool:
            raise ValidationError.one("pool", f"{pool!r} is not a pool name (letters, digits, -_.:)")

    def _dataset(self, name: str) -> dict[str, Any] | None:
        found = self.backend.call("pool.dataset.query", [["id", "=", name]])
        return found[0] if found else None

    def space(self, pool: str) -> PoolSpace:
        self._check_pool(pool)
        root = self._dataset(pool)
        if root is None:
            raise ValidationError.one("pool", f"no pool {pool!r} on this TrueNAS (pool.dataset.query found none)")
        used, available = _property(root, "used"), _property(root, "available")
        if not isinstance(used, int) or not isinstance(available, int):
            raise ToolOutputError(f"pool.dataset.query {pool}: used/available are not byte counts ({used!r}, {available!r})")
        return PoolSpace(used=used, available=available)

    def create_scratch(self, pool: str, tag: str) -> ScratchInfo:
        self._check_pool(pool)
        return self._create(pool, tag)

    def create_scratch_under(self, parent: str, tag: str, *, inherit: bool = False) -> ScratchInfo:
        if not isinstance(parent, str) or not DATASET_RE.fullmatch(parent):
            raise ValidationError.one("dataset", f"{parent!r} is not a dataset name")
        return self._create(parent, tag, inherit=inherit)

    def set_primarycache(self, dataset: str, value: PrimaryCache) -> None:
        require_scratch(dataset, f"set primarycache={value} on")
        if value not in ("all", "metadata"):
            raise ValueError(f"primarycache={value!r}: tengig sets only all or metadata")
        self.backend.call("zfs.dataset.update", dataset, {"properties": {"primarycache": {"value": value}}})

    def dataset_mounted_at(self, path: str) -> str | None:
        found = self.backend.call("pool.dataset.query", [["mountpoint", "=", path.rstrip("/")]])
        return found[0]["id"] if found else None

    def _create(self, parent: str, tag: str, *, inherit: bool = False) -> ScratchInfo:
        if not TAG_RE.fullmatch(tag):
            raise ValueError(f"bad scratch tag {tag!r}")
        name = f"{parent}/{SCRATCH_PREFIX}-{tag}"
        sizes = (None,) if inherit else RECORDSIZES  # inherit: the parent's own speed properties, one try
        for index, recordsize in enumerate(sizes):
            own = {} if recordsize is None else {"compression": "OFF", "sync": "STANDARD",
                                                 "recordsize": recordsize, "atime": "OFF"}
            try:
                self.backend.call("pool.dataset.create", {
                    "name": name, "type": "FILESYSTEM", **own,
                    "user_properties": [{"key": SCRATCH_PROPERTY, "value": tag}],
                })
                break
            except ValidationError as exc:  # a pool without large blocks refuses 1M: the next size, as ZfsCli does
                if index + 1 == len(sizes) or not any(f.endswith(".recordsize") for f, _ in exc.errors):
                    raise
        entry = self._dataset(name)
        if entry is None:
            raise ToolOutputError(f"pool.dataset.create {name} answered, but pool.dataset.query does not find it")
        recordsize = _property(entry, "recordsize")
        return ScratchInfo(
            name=name, mountpoint=entry.get("mountpoint") or f"/mnt/{name}",
            recordsize=recordsize if isinstance(recordsize, int) else parse_size(str(recordsize)),
            compression=_word(entry, "compression"), atime=_word(entry, "atime"),
        )

    def settle_writes(self, pool: str) -> str:
        self._check_pool(pool)
        return "not waited: the TrueNAS API has no `zpool sync`"

    def dataset_properties(self, dataset: str) -> dict[str, str]:
        """As `zfs get -Hp` prints them: each property's rawvalue (lz4, standard, 131072)."""
        entry = self._dataset(dataset)
        if entry is None:
            raise ValidationError.one("dataset", f"no dataset {dataset!r}")
        found = {}
        for name in SPEED_PROPERTIES:
            value = entry.get(QUERY_NAMES.get(name, name))
            if isinstance(value, dict):
                value = value.get("rawvalue") if value.get("rawvalue") is not None else value.get("value")
            if value is not None:
                found[name] = str(value).lower()
        return found

    def compressratio(self, dataset: str) -> float:
        entry = self._dataset(dataset)
        if entry is None:
            raise ValidationError.one("dataset", f"no dataset {dataset!r}")
        ratio = _property(entry, "compressratio")
        try:
            return float(str(ratio).rstrip("x"))
        except ValueError:
            raise ToolOutputError(f"pool.dataset.query {dataset}: unreadable compressratio {ratio!r}") from None

    def destroy(self, dataset: str) -> None:
        require_scratch(dataset, "destroy")
        if self._dataset(dataset) is None:
            return  # already gone: what an abort after a crash finds
        self.backend.call("pool.dataset.delete", dataset, {"recursive": True})

    def find_scratch(self, pool: str) -> list[str]:
        """Datasets carrying tengig's scratch property, e.g. left by a killed run."""
        self._check_pool(pool)
        found = []
        for entry in self.backend.call("pool.dataset.query", [["id", "^", f"{pool}/"]]):
            props = entry.get("user_properties") or {}
            if SCRATCH_PROPERTY in props and f"/{SCRATCH_PREFIX}-" in entry["id"]:
                found.append(entry["id"])
        return sorted(found)
