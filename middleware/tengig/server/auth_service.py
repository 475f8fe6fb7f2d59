"""auth.*: API-key login for TCP sessions (the unix socket trusts root by SO_PEERCRED instead).

Every check goes through the login gate (login_gate.py): its own threads, at most a few waiting per
source, a back-off after failures that holds up only what failed from that source. PASSWORD_PLAIN is
answered as TrueNAS answers a wrong password, AUTH_ERR, always: tengig's host has API keys only (a PAM
login would need root's PAM stack inside a network service for a feature nobody here needs), so no
password is ever checked or logged.
"""
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
AUTH_ERR = {"response_type": "AUTH_ERR"}


class AuthService(Service):
    class Config:
        namespace = "auth"
        cli_namespace = "auth"

    @api_method(AuthLoginExArgs, AuthLoginExResult, authentication_required=False, pass_app=True)
    async def login_ex(self, app: Any, login_data: dict[str, Any]) -> dict[str, Any]:
        """Log in with {"mechanism": "API_KEY_PLAIN", "username": ..., "api_key": ...}. PASSWORD_PLAIN and
        TOKEN_PLAIN are accepted and always answered AUTH_ERR (this host has no password logins and issues
        no login tokens; a benchmark run's join token goes to tengig.bench.session.join, with no login)."""
        if login_data["mechanism"] != "API_KEY_PLAIN":
            logger.warning("refused a %s login for %r from %s (API keys only here)", login_data["mechanism"],
                           login_data.get("username", ""), app.origin)
            self.middleware.login_gate.record(app.source, None, ok=False)
            return AUTH_ERR
        key = await self.middleware.verify_api_key(app.source, login_data["api_key"], login_data["username"])
        if key is None:
            logger.warning("failed API key login for %r from %s", login_data["username"], app.origin)
            return AUTH_ERR
        _log_in(app, key)
        return {
            "response_type": "SUCCESS",
            "user_info": {"username": key.username, "privilege": {"roles": SESSION_ROLES}},
            "authenticator": "LEVEL_1",
        }

    @api_method(AuthLoginWithApiKeyArgs, AuthLoginWithApiKeyResult, authentication_required=False, pass_app=True)
    async def login_with_api_key(self, app: Any, api_key: str) -> bool:
        """The older login: the key alone; true when it is valid."""
        key = await self.middleware.verify_api_key(app.source, api_key)
        if key is None:
            logger.warning("failed API key login from %s", app.origin)
            return False
        _log_in(app, key)
        return True

    @api_method(AuthMechanismChoicesArgs, AuthMechanismChoicesResult, authentication_required=False)
    async def mechanism_choices(self) -> list[str]:
        # TOKEN_PLAIN is left out: a run's join token is not a way for a person to log in (the panel
        # lists these choices to users), only a desktop's way into one run.
        return ["API_KEY_PLAIN"]

    @api_method(AuthLogoutArgs, AuthLogoutResult, authorization_required=False, pass_app=True)
    async def logout(self, app: Any) -> bool:
        app.credentials = None
        app.subscriptions.clear()
        return True


def _log_in(app: Any, key: Any) -> None:
    app.credentials = Credentials("API_KEY", key.username, {"api_key": {"id": key.id, "name": key.name}})
