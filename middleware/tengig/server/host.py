"""The host core with what a network server adds: an event hub for sessions, the API key store, its
login gate and its revocation listener, a small CPU pool for work that must not hold the event loop,
and the cached method catalogue, plus the core.* and auth.* services that need them."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..api.host import Middleware
from ..api.job_manager import JOBS_EVENT
from ..api.params import accept_params, dump_result
from ..api.registry import MethodEntry, Registry
from . import method_catalog
from .apikeys import ApiKeyStore
from .auth_service import AuthService
from .core_service import CoreService
from .events import EventHub
from .host_marks import RAW_RESULT_ATTR
from .login_gate import LoginGate
from .revocation import RevocationListener
from .rpc import RawJSON

CPU_THREADS = 1  # CPU-bound host work (the catalogue); bounded so it can never take every core
RECHECKS = 3  # checks of one login when keys are deleted while it is checked


class ServerMiddleware(Middleware):
    def __init__(self, registry: Registry, api_keys: ApiKeyStore):
        self.events = EventHub()
        self.api_keys = api_keys
        self.login_gate = LoginGate()
        self.revocation = RevocationListener(api_keys, self.events)  # started by the server (app.py)
        self.cpu_pool = ThreadPoolExecutor(max_workers=CPU_THREADS, thread_name_prefix="tengig-cpu")
        self._catalog: dict[str | None, RawJSON] = {}
        self._catalog_lock: asyncio.Lock | None = None
        self.catalog_builds = 0
        self._slow_checks: dict[Any, asyncio.Future[Any]] = {}  # one PBKDF2 per distinct key being checked
        super().__init__(registry.with_services(CoreService, AuthService), self._publish_job_event)
        self._services = {name.rsplit(".", 1)[0] for name in self.methods}
        self._no_params = {name for name, entry in self.methods.items() if not entry.spec.accepts.model_fields}

    async def invoke(self, entry: MethodEntry, params: list[Any], **kwargs: Any) -> Any:
        if getattr(entry.function, RAW_RESULT_ATTR, False):
            self._remember_loop()
            args = accept_params(entry.spec.accepts, params)
            prepend = [kwargs.get("app")] if entry.spec.pass_app else []
            return await entry.function(*prepend, *args)
        if not params and entry.is_async and entry.job is None and not entry.spec.pass_app \
                and entry.name in self._no_params:
            # Fast path (core.ping and kin): nothing to validate.
            self._remember_loop()
            return dump_result(entry.spec.returns, await entry.function())
        return await super().invoke(entry, params, **kwargs)

    async def verify_api_key(self, source: str, api_key: Any, username: str | None = None) -> Any:
        """The key's record or None: the cheap lookup in the call threads, any hashing through the login
        gate (its own pool; throttled per source and per key). A login that was being checked while a
        key was deleted is checked again: its row may have been read before the delete."""
        for _ in range(RECHECKS):
            generation = self.revocation.generation
            key = await self._check_api_key(source, api_key, username)
            if key is None or self.revocation.generation == generation:
                return key
        return None  # keys were deleted again and again while this one was checked: try later

    async def _check_api_key(self, source: str, api_key: Any, username: str | None) -> Any:
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(self._executor, self.api_keys.check_fast, api_key, username)
        if found.slow is None:
            self.login_gate.record(source, found.key_id, ok=found.record is not None)
            return found.record
        running = self._slow_checks.get(found.token)
        if running is None:
            running = self._slow_checks[found.token] = asyncio.ensure_future(
                self.login_gate.check(source, found.key_id, found.slow))
            running.add_done_callback(lambda _: self._slow_checks.pop(found.token, None))
        return await asyncio.shield(running)

    async def method_catalog(self, service: str | None) -> RawJSON:
        """core.get_methods' answer: built once per filter in the CPU pool, then the same text."""
        cached = self._catalog.get(service)
        if cached is not None:
            return cached
        if service is not None and service not in self._services:
            return RawJSON("{}")  # no such service: nothing to list (and nothing to cache per stranger's string)
        if self._catalog_lock is None:
            self._catalog_lock = asyncio.Lock()
        async with self._catalog_lock:
            if (cached := self._catalog.get(service)) is None:
                text = await asyncio.get_running_loop().run_in_executor(
                    self.cpu_pool, method_catalog.catalog_json, self.methods, service)
                self.catalog_builds += 1
                cached = self._catalog[service] = RawJSON(text)
        return cached

    async def shutdown(self, grace_seconds: float = 10.0):
        left = await super().shutdown(grace_seconds)
        self.cpu_pool.shutdown(wait=False, cancel_futures=True)
        self.login_gate.shutdown()
        return left

    def _publish_job_event(self, msg: str, job_id: int, fields: dict[str, Any]) -> None:
        self.events.publish(JOBS_EVENT, msg, job_id, fields)
