"""Models of the host's own methods (core.*, auth.*), named as middlewared names them."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..api.models.base import ApiInput, ApiOutput


class CorePingArgs(ApiInput):
    pass


class CorePingResult(ApiOutput):
    result: Literal["pong"] = Field(description="Always 'pong'.")


class CoreOptions(ApiInput):
    legacy_jobs: bool | None = Field(None, description="true: a job method answers its job id at once; false: "
                                     "it answers when the job ends, with its result.")
    private_methods: bool | None = Field(None, description="Accepted for compatibility; tengig has no private methods.")
    py_exceptions: bool | None = Field(None, description="Accepted for compatibility; always false here "
                                       "(exceptions are never pickled to a client).")


class CoreSetOptionsArgs(ApiInput):
    options: CoreOptions = Field(description="Options to change; absent ones stay as they are.")


class CoreOptionsState(ApiOutput):
    legacy_jobs: bool = Field(description="The session's legacy_jobs option now.")
    private_methods: bool = Field(description="The session's private_methods option now.")
    py_exceptions: bool = Field(description="Always false.")


class CoreSetOptionsResult(ApiOutput):
    result: CoreOptionsState = Field(description="The session's options after the change.")


class CoreSubscribeArgs(ApiInput):
    event: str = Field(description="Event name (core.get_jobs) or '*' for all.")


class CoreSubscribeResult(ApiOutput):
    result: str = Field(description="Subscription id, for core.unsubscribe.")


class CoreUnsubscribeArgs(ApiInput):
    id_: str = Field(description="Subscription id from core.subscribe.")


class CoreUnsubscribeResult(ApiOutput):
    result: None = Field(description="null.")


class CoreGetJobsOptions(ApiInput):
    order_by: list[str] = Field(default_factory=list, description="Fields to sort by; '-field' sorts descending.")
    select: list[str] = Field(default_factory=list, description="Only these top-level fields of each job.")
    offset: int = Field(0, ge=0, description="Skip this many jobs first.")
    limit: int = Field(0, ge=0, description="At most this many jobs (0: no limit).")
    count: bool = Field(False, description="Answer the number of matching jobs instead of the jobs.")
    get: bool = Field(False, description="Answer the first matching job itself (ENOENT if none).")
    extra: dict[str, Any] = Field(default_factory=dict, description="Accepted for compatibility; ignored.")


class CoreGetJobsArgs(ApiInput):
    filters: list[Any] = Field(default_factory=list,
                               description="[[field, operator, value], ...]; operators = != > >= < <= in nin ^ $; "
                               "field may be dotted (progress.percent).")
    options: CoreGetJobsOptions = Field(default_factory=CoreGetJobsOptions, description="Sorting, paging, shape.")


class CoreGetJobsResult(ApiOutput):
    result: list[dict[str, Any]] | dict[str, Any] | int = Field(
        description="Job dicts; one job dict with options.get; a number with options.count."
    )


class CoreJobAbortArgs(ApiInput):
    id: int = Field(description="Job id.")


class CoreJobAbortResult(ApiOutput):
    result: None = Field(description="null; the job ends ABORTED when its body stops.")


class CoreJobWaitArgs(ApiInput):
    id: int = Field(description="Job id.")


class CoreJobWaitResult(ApiOutput):
    result: Any = Field(description="The job's result once it ends (its error if it failed).")


class CoreGetMethodsArgs(ApiInput):
    service: str | None = Field(None, description="Only this service's methods (e.g. 'tengig.results').")
    target: Literal["WS", "CLI", "REST"] = Field("WS", description="Accepted for compatibility.")


class CoreGetMethodsResult(ApiOutput):
    result: dict[str, Any] = Field(description="Method name -> description, roles, job, accepts/returns JSON schema.")


class AuthApiKeyPlain(ApiInput):
    mechanism: Literal["API_KEY_PLAIN"] = Field(description="The mechanism tengig's host logs in with.")
    username: str = Field(description="The user the key belongs to (as given to `tengig apikey create`).")
    api_key: str = Field(description="The key, '<id>-<secret>', as printed once when it was created.")


class AuthPasswordPlain(ApiInput):
    mechanism: Literal["PASSWORD_PLAIN"] = Field(description="Accepted as TrueNAS accepts it; tengig's host has "
                                                 "no password logins, so the answer is always AUTH_ERR.")
    username: str = Field(description="A user name.")
    password: str = Field(description="A password (never checked, never logged).")


class AuthTokenPlain(ApiInput):
    mechanism: Literal["TOKEN_PLAIN"] = Field(description="Accepted as TrueNAS accepts it; tengig's host issues no "
                                              "login tokens, so the answer is always AUTH_ERR. A benchmark run's "
                                              "join token goes to tengig.bench.session.join, with no login.")
    token: str = Field(max_length=200, description="A token (never checked, never logged).")


class AuthLoginExArgs(ApiInput):
    login_data: AuthApiKeyPlain | AuthPasswordPlain | AuthTokenPlain = Field(discriminator="mechanism",
                                                            description="Mechanism and credentials.")


class AuthUserInfo(ApiOutput):
    username: str = Field(description="Who is logged in.")
    privilege: dict[str, Any] = Field(description="{'roles': [...]} granted to the session.")


class AuthRespSuccess(ApiOutput):
    response_type: Literal["SUCCESS"] = Field(description="Logged in.")
    user_info: AuthUserInfo | None = Field(description="Who is logged in.")
    authenticator: Literal["LEVEL_1"] = Field(description="Authenticator assurance level.")


class AuthRespAuthErr(ApiOutput):
    response_type: Literal["AUTH_ERR"] = Field(description="Wrong user or key.")


class AuthLoginExResult(ApiOutput):
    result: AuthRespSuccess | AuthRespAuthErr = Field(discriminator="response_type",
                                                      description="SUCCESS or AUTH_ERR.")


class AuthLoginWithApiKeyArgs(ApiInput):
    api_key: str = Field(description="The key, '<id>-<secret>'.")


class AuthLoginWithApiKeyResult(ApiOutput):
    result: bool = Field(description="true: logged in.")


class AuthMechanismChoicesArgs(ApiInput):
    pass


class AuthMechanismChoicesResult(ApiOutput):
    result: list[str] = Field(description="Mechanisms auth.login_ex accepts here.")


class AuthLogoutArgs(ApiInput):
    pass


class AuthLogoutResult(ApiOutput):
    result: Literal[True] = Field(description="true; the session is unauthenticated again.")
