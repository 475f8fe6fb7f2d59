"""The host core with what a network server adds: an event hub for sessions and the API key store,
plus the core.* and auth.* services that need them."""
from __future__ import annotations

from typing import Any

from ..api.host import Middleware
from ..api.job_manager import JOBS_EVENT
from ..api.registry import Registry
from .apikeys import ApiKeyStore
from .auth_service import AuthService
from .core_service import CoreService
from .events import EventHub


class ServerMiddleware(Middleware):
    def __init__(self, registry: Registry, api_keys: ApiKeyStore):
        self.events = EventHub()
        self.api_keys = api_keys
        super().__init__(registry.with_services(CoreService, AuthService), self._publish_job_event)

    def _publish_job_event(self, msg: str, job_id: int, fields: dict[str, Any]) -> None:
        self.events.publish(JOBS_EVENT, msg, job_id, fields)
