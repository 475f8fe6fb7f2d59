"""Running the stand-in TrueNAS (a stand-in following docs/truenas-api.md §3/§4, not TrueNAS): tengig's own host
(TengigServer) serving the stand-in services, on /api/current (25.04, 25.10) or /websocket (24.10,
CORE 13.3), with one API key made at start.

    async with running_standin(example_seed("24.10")) as nas:      # in an async test or program
        nas.url, nas.api_key, nas.state.network.active

    with StandinThread(seed) as nas:                               # from sync code (pytest): own loop thread
        nas.run(some_coroutine)
"""
from __future__ import annotations

import asyncio
import copy
import errno
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ...api.exceptions import CallError, ValidationErrors
from ...api.registry import Registry
from ...server.apikeys import ApiKeyStore
from ...server.app import TengigServer
from .network import ActiveHook, NetworkState
from .seed import StandinSeed
from .services import STANDIN_SERVICES
from .storage import StorageState

NETWORK_CONFIG_KEYS = {"hostname", "domain", "ipv4gateway", "nameserver1", "nameserver2", "nameserver3", "hosts"}


class StandinState:
    """Everything the stand-in holds; services reach it as ``self.middleware.truenas``."""

    def __init__(self, seed: StandinSeed, on_active_change: ActiveHook | None = None,
                 storage: type[StorageState] = StorageState):
        self.seed = seed
        self.network = NetworkState(seed, on_active_change)
        version = self.network.version
        self.storage = storage(seed, smb_from_25_10=version.smb_readonly_field == "readonly")
        self.granted_roles: set[str] | None = None   # None: every key is a full administrator's
        hosts = seed.hosts if seed.hosts is not None else ([] if version.hosts_as_list else "")
        self.config: dict[str, Any] = {"id": 1, "hostname": "truenas", "domain": "local", "ipv4gateway": "",
                                       "nameserver1": "", "nameserver2": "", "nameserver3": "", "hosts": hosts}

    def require_role(self, role: str) -> None:
        """As middlewared refuses a call the session's roles do not allow: CallError 'Not authorized', EACCES."""
        if self.granted_roles is not None and role not in self.granted_roles and "FULL_ADMIN" not in self.granted_roles:
            raise CallError("Not authorized", errno.EACCES)

    def network_config(self) -> dict[str, Any]:
        return copy.deepcopy(self.config)

    def update_network_config(self, data: dict[str, Any]) -> dict[str, Any]:
        errors = ValidationErrors()
        for key in sorted(set(data) - NETWORK_CONFIG_KEYS):
            errors.add(f"global_configuration_update.{key}", "Field was not expected")
        if "hosts" in data:
            hosts, as_list = data["hosts"], self.network.version.hosts_as_list
            if as_list and not (isinstance(hosts, list) and all(isinstance(h, str) for h in hosts)):
                errors.add("global_configuration_update.hosts", "Not a list of strings")
            elif not as_list and not isinstance(hosts, str):
                errors.add("global_configuration_update.hosts", "Not a string")
        if errors:
            raise errors
        self.config.update(copy.deepcopy(data))
        return self.network_config()


class StandinTrueNAS:
    def __init__(self, seed: StandinSeed, *, host: str | None = "127.0.0.1", port: int = 0,
                 on_active_change: ActiveHook | None = None, key_dir: Path | None = None,
                 unix_socket: Path | None = None, storage: type[StorageState] = StorageState,
                 recorder: list[dict[str, Any]] | None = None):
        """``unix_socket``: also (or, with ``host`` None, only) serve there, as middlewared serves its
        middlewared.sock; ``storage``: where datasets live (StorageState in memory; zfs_pool.ZfsPoolStorage
        on a real pool); ``recorder``: every call and its answer is appended there (a test checks them
        against TrueNAS's own models)."""
        self.state = StandinState(seed, on_active_change, storage)
        self._own_key_dir = key_dir is None
        self.key_dir = Path(tempfile.mkdtemp(prefix="tengig-standin-")) if key_dir is None else key_dir
        keys = ApiKeyStore(self.key_dir / "apikeys.sqlite3")
        _, self.api_key = keys.create("standin")
        protocol = self.state.network.version.protocol
        self.server = TengigServer(host=host, port=port, unix_socket=unix_socket, ui_dir=None,
                                   registry=Registry(STANDIN_SERVICES), api_keys=keys, protocol=protocol)
        self.server.middleware.truenas = self.state  # what the services reach
        if recorder is not None:
            self.server.middleware.invoke = _recording(self.server.middleware.invoke, recorder)

    @property
    def url(self) -> str:
        return self.server.url

    async def start(self) -> None:
        await self.server.start()

    async def stop(self) -> None:
        self.state.network.cancel_rollback()  # no timer may fire into a stopped loop
        await self.server.stop(grace_seconds=2)
        if self._own_key_dir:
            shutil.rmtree(self.key_dir, ignore_errors=True)


def _recording(invoke: Any, recorder: list[dict[str, Any]]) -> Any:
    """``invoke`` that appends {method, params, result | error} for every call it serves."""
    async def recorded(entry: Any, params: list[Any], **kwargs: Any) -> Any:
        call = {"method": entry.name, "params": copy.deepcopy(params)}
        try:
            result = await invoke(entry, params, **kwargs)
        except Exception as exc:
            recorder.append({**call, "error": f"{type(exc).__name__}: {exc}"})
            raise
        recorder.append({**call, "result": copy.deepcopy(result)})
        return result
    return recorded


@asynccontextmanager
async def running_standin(seed: StandinSeed, **kwargs: Any) -> AsyncIterator[StandinTrueNAS]:
    nas = StandinTrueNAS(seed, **kwargs)
    await nas.start()
    try:
        yield nas
    finally:
        await nas.stop()


class StandinThread:
    """The stand-in on its own event loop thread, for sync callers (tests, the CLI's clients)."""

    def __init__(self, seed: StandinSeed, **kwargs: Any):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="truenas-standin", daemon=True)
        self.nas = StandinTrueNAS(seed, **kwargs)

    def run(self, coroutine: Any, timeout: float = 10) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def on_loop(self, function: Any, *args: Any, timeout: float = 10) -> Any:
        """Run a plain function on the stand-in's loop (its state is only touched there)."""
        async def call() -> Any:
            return function(*args)
        return self.run(call(), timeout)

    def __enter__(self) -> StandinTrueNAS:
        self._thread.start()
        self.run(self.nas.start())
        return self.nas

    def __exit__(self, *exc_info: Any) -> None:
        try:
            self.run(self.nas.stop(), timeout=15)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(5)
            self.loop.close()
