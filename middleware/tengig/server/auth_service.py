"""auth.*: API-key login for TCP sessions (the unix socket trusts root by SO_PEERCRED instead)."""
from __future__ import annotations

import logging
from typing import Any

from ..api.decorators import api_method
from ..api.service import Service
from .models import (
    AuthLoginExArgs, AuthLoginExResult, AuthLoginWithApiKeyArgs, AuthLoginWithApiKeyResult, AuthLogoutArgs,
    AuthLogoutResult, AuthMechanismChoicesArgs, AuthMechanismChoicesResult,
)
from .session import Credentials

logger = logging.getLogger(__name__)

# Every session tengig's host authenticates is an administrator (see Dispatcher._call).
SESSION_ROLES = ["FULL_ADMIN"]


class AuthService(Service):
    class Config:
        namespace = "auth"
        cli_namespace = "auth"

    @api_method(AuthLoginExArgs, AuthLoginExResult, authentication_required=False, pass_app=True)
    def login_ex(self, app: Any, login_data: dict[str, Any]) -> dict[str, Any]:
        """Log in with {"mechanism": "API_KEY_PLAIN", "username": ..., "api_key": ...}."""
        key = self.middleware.api_keys.verify(login_data["api_key"], username=login_data["username"])
        if key is None:
            logger.warning("failed API key login for %r from %s", login_data["username"], app.origin)
            return {"response_type": "AUTH_ERR"}
        _log_in(app, key)
        return {
            "response_type": "SUCCESS",
            "user_info": {"username": key.username, "privilege": {"roles": SESSION_ROLES}},
            "authenticator": "LEVEL_1",
        }

    @api_method(AuthLoginWithApiKeyArgs, AuthLoginWithApiKeyResult, authentication_required=False, pass_app=True)
    def login_with_api_key(self, app: Any, api_key: str) -> bool:
        """The older login: the key alone; true when it is valid."""
        key = self.middleware.api_keys.verify(api_key)
        if key is None:
            logger.warning("failed API key login from %s", app.origin)
            return False
        _log_in(app, key)
        return True

    @api_method(AuthMechanismChoicesArgs, AuthMechanismChoicesResult, authentication_required=False)
    async def mechanism_choices(self) -> list[str]:
        return ["API_KEY_PLAIN"]

    @api_method(AuthLogoutArgs, AuthLogoutResult, authorization_required=False, pass_app=True)
    async def logout(self, app: Any) -> bool:
        app.credentials = None
        app.subscriptions.clear()
        return True


def _log_in(app: Any, key: Any) -> None:
    app.credentials = Credentials("API_KEY", key.username, {"api_key": {"id": key.id, "name": key.name}})
