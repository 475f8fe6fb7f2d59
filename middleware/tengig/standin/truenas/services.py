"""The stand-in's API methods, declared as tengig declares its own (Service, @api_method), so tengig's
host serves them with TrueNAS's wire protocol, errors and auth (a stand-in following docs/truenas-api.md §3/§4,
not TrueNAS). Each method is one line into the state (network.py, storage.py), reached as
``self.middleware.truenas`` (the StandinState the server attaches).

Args/Result models follow the 25.10 naming rule the Service base checks; they are generated here
(``_models``) because they are many and alike. Interface/dataset/share payloads are ``dict``s at this
level and validated by the state against the release played (CORE and SCALE differ), with TrueNAS's
field paths.
"""
from __future__ import annotations

from typing import Any

import pydantic
from pydantic import Field

from ...api.decorators import api_method
from ...api.filters import filter_list
from ...api.models.base import ApiInput, ApiOutput
from ...api.service import Service, camel
from ...checkin import CHECKIN_TIMEOUT_S

NET_READ, NET_WRITE = ["NETWORK_INTERFACE_READ"], ["NETWORK_INTERFACE_WRITE"]


def _models(stem: str, method: str, args: dict[str, tuple[Any, Any]], result: Any, what: str):
    """(<Stem><Method>Args, <Stem><Method>Result): args fields in positional order, one result field."""
    base = f"{stem}{camel(method)}"
    fields = {name: (kind, Field(default, description=name.replace("_", " ")) if default is not ... else
                     Field(description=name.replace("_", " "))) for name, (kind, default) in args.items()}
    accepts = pydantic.create_model(f"{base}Args", __base__=ApiInput, **fields)
    # type(None), not None: pydantic before 2.11 reads a bare None as "no annotation" (TrueNAS ships 2.9)
    result = type(None) if result is None else result
    returns = pydantic.create_model(f"{base}Result", __base__=ApiOutput, result=(result, Field(description=what)))
    return accepts, returns


QUERY = {"filters": (list[Any], []), "options": (dict[str, Any], {})}


def _query(items: list[dict[str, Any]], filters: list[Any], options: dict[str, Any]) -> Any:
    return filter_list(items, filters, options)


class SystemService(Service):
    class Config:
        namespace = "system"
        cli_namespace = "system"

    @api_method(*_models("System", "version", {}, str, "TrueNAS-SCALE-24.10.2.4, TrueNAS-25.04.2.6 ..."),
                roles=["READONLY_ADMIN"])
    async def version(self) -> str:
        return self.middleware.truenas.network.version.text


class InterfaceService(Service):
    class Config:
        namespace = "interface"
        cli_namespace = "network.interface"

    @api_method(*_models("Interface", "query", QUERY, Any, "Interface entries."), roles=NET_READ)
    async def query(self, filters: list[Any], options: dict[str, Any]) -> Any:
        return _query(self.middleware.truenas.network.entries(), filters, options)

    @api_method(*_models("Interface", "create", {"data": (dict[str, Any], ...)}, dict[str, Any], "The new entry."),
                roles=NET_WRITE)
    async def create(self, data: dict[str, Any]) -> dict[str, Any]:
        return self.middleware.truenas.network.create(data)

    @api_method(*_models("Interface", "update", {"id": (str, ...), "data": (dict[str, Any], ...)}, dict[str, Any],
                         "The entry, saved config updated."), roles=NET_WRITE)
    async def update(self, id: str, data: dict[str, Any]) -> dict[str, Any]:
        return self.middleware.truenas.network.update(id, data)

    @api_method(*_models("Interface", "delete", {"id": (str, ...)}, str, "The id deleted."), roles=NET_WRITE)
    async def delete(self, id: str) -> str:
        return self.middleware.truenas.network.delete(id)

    @api_method(*_models("Interface", "commit", {"options": (dict[str, Any], {})}, None, "null."), roles=NET_WRITE)
    async def commit(self, options: dict[str, Any]) -> None:
        self.middleware.truenas.network.commit(bool(options.get("rollback", True)),
                                               int(options.get("checkin_timeout", CHECKIN_TIMEOUT_S)))

    @api_method(*_models("Interface", "checkin", {}, None, "null."), roles=NET_WRITE)
    async def checkin(self) -> None:
        self.middleware.truenas.network.checkin()

    @api_method(*_models("Interface", "checkin_waiting", {}, int | None, "Seconds left, or null."), roles=NET_WRITE)
    async def checkin_waiting(self) -> int | None:
        return self.middleware.truenas.network.checkin_waiting()

    @api_method(*_models("Interface", "rollback", {}, None, "null."), roles=NET_WRITE)
    async def rollback(self) -> None:
        self.middleware.truenas.network.rollback()

    @api_method(*_models("Interface", "cancel_rollback", {}, None, "null."), roles=NET_WRITE)
    async def cancel_rollback(self) -> None:
        self.middleware.truenas.network.cancel_rollback()

    @api_method(*_models("Interface", "has_pending_changes", {}, bool, "Staged or uncommitted changes exist."),
                roles=NET_WRITE)
    async def has_pending_changes(self) -> bool:
        return self.middleware.truenas.network.original is not None

    @api_method(*_models("Interface", "websocket_interface", {}, dict[str, Any] | None,
                         "The entry of the interface this session arrives on, or null."), roles=NET_READ)
    async def websocket_interface(self) -> dict[str, Any] | None:
        return self.middleware.truenas.network.websocket_interface()

    @api_method(*_models("Interface", "websocket_local_ip", {}, str | None, "This session's local address."),
                roles=NET_READ)
    async def websocket_local_ip(self) -> str | None:
        return self.middleware.truenas.network.websocket_local_ip()


class NetworkConfigurationService(Service):
    class Config:
        namespace = "network.configuration"
        cli_namespace = "network.configuration"

    @api_method(*_models("NetworkConfiguration", "config", {}, dict[str, Any], "Global network config."),
                roles=["NETWORK_GENERAL_READ"])
    async def config(self) -> dict[str, Any]:
        return self.middleware.truenas.network_config()

    @api_method(*_models("NetworkConfiguration", "update", {"data": (dict[str, Any], ...)}, dict[str, Any],
                         "The config after the update."), roles=["NETWORK_GENERAL_WRITE"])
    async def update(self, data: dict[str, Any]) -> dict[str, Any]:
        return self.middleware.truenas.update_network_config(data)


class PoolService(Service):
    class Config:
        namespace = "pool"
        cli_namespace = "storage.pool"

    @api_method(*_models("Pool", "query", QUERY, Any, "Pool entries."), roles=["POOL_READ"])
    async def query(self, filters: list[Any], options: dict[str, Any]) -> Any:
        return _query(self.middleware.truenas.storage.query_pools(), filters, options)


class ZfsDatasetService(Service):
    """TrueNAS's private zfs.dataset.update, which sets a property pool.dataset.* does not have
    (primarycache); private there, so only a full administrator may call it."""

    class Config:
        namespace = "zfs.dataset"
        cli_namespace = "storage.zfs_dataset"

    @api_method(*_models("ZfsDataset", "update", {"id": (str, ...), "data": (dict[str, Any], ...)}, dict[str, Any],
                         "The dataset."), roles=["FULL_ADMIN"])
    async def update(self, id: str, data: dict[str, Any]) -> dict[str, Any]:
        self.middleware.truenas.require_role("FULL_ADMIN")
        return self.middleware.truenas.storage.update_properties(id, data)


class PoolDatasetService(Service):
    class Config:
        namespace = "pool.dataset"
        cli_namespace = "storage.dataset"

    @api_method(*_models("PoolDataset", "query", QUERY, Any, "Dataset entries."), roles=["DATASET_READ"])
    async def query(self, filters: list[Any], options: dict[str, Any]) -> Any:
        return _query(self.middleware.truenas.storage.query_datasets(), filters, options)

    @api_method(*_models("PoolDataset", "create", {"data": (dict[str, Any], ...)}, dict[str, Any], "The dataset."),
                roles=["DATASET_WRITE"])
    async def create(self, data: dict[str, Any]) -> dict[str, Any]:
        self.middleware.truenas.require_role("DATASET_WRITE")
        return self.middleware.truenas.storage.create_dataset(data)

    @api_method(*_models("PoolDataset", "delete", {"id": (str, ...), "options": (dict[str, Any], {})}, bool,
                         "true."), roles=["DATASET_DELETE"])
    async def delete(self, id: str, options: dict[str, Any]) -> bool:
        self.middleware.truenas.require_role("DATASET_DELETE")
        return self.middleware.truenas.storage.delete_dataset(id, options)


class SharingSMBService(Service):
    class Config:
        namespace = "sharing.smb"
        cli_namespace = "sharing.smb"

    @api_method(*_models("SharingSMB", "query", QUERY, Any, "Share entries."), roles=["SHARING_SMB_READ"])
    async def query(self, filters: list[Any], options: dict[str, Any]) -> Any:
        return _query(list(self.middleware.truenas.storage.shares.values()), filters, options)

    @api_method(*_models("SharingSMB", "create", {"data": (dict[str, Any], ...)}, dict[str, Any], "The share."),
                roles=["SHARING_SMB_WRITE"])
    async def create(self, data: dict[str, Any]) -> dict[str, Any]:
        return self.middleware.truenas.storage.create_share(data)

    @api_method(*_models("SharingSMB", "delete", {"id": (int, ...)}, bool, "true."), roles=["SHARING_SMB_WRITE"])
    async def delete(self, id: int) -> bool:
        return self.middleware.truenas.storage.delete_share(id)


class SMBService(Service):
    class Config:
        namespace = "smb"
        cli_namespace = "service.smb"

    @api_method(*_models("SMB", "config", {}, dict[str, Any], "The SMB service's settings."), roles=["SHARING_SMB_READ"])
    async def config(self) -> dict[str, Any]:
        return dict(self.middleware.truenas.storage.smb_config)

    @api_method(*_models("SMB", "update", {"data": (dict[str, Any], ...)}, dict[str, Any], "The settings after."),
                roles=["SHARING_SMB_WRITE"])
    async def update(self, data: dict[str, Any]) -> dict[str, Any]:
        return self.middleware.truenas.storage.update_smb_config(data)


STANDIN_SERVICES = (SystemService, InterfaceService, NetworkConfigurationService, PoolService, PoolDatasetService,
                    ZfsDatasetService, SharingSMBService, SMBService)
