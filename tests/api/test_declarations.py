"""The declaration rules (docs/truenas-api.md §1) are enforced when a service is defined, and every model of
every registered method follows the API model rules."""
from __future__ import annotations

import pkgutil
import typing

import pytest
from pydantic import BaseModel, Field

from tengig.api import Registry, Service, api_method, job
from tengig.api import services as services_pkg
from tengig.api.models.base import ApiInput, ApiOutput
from tengig.api.models.results import TenGigResultsEntry, TenGigResultsEnvironment, TenGigResultsRawOutput
from tengig.api.models.targets import TenGigTargetsEntry
from tengig.results.models import Environment, RawOutput, RunRecord
from tengig.server.auth_service import AuthService
from tengig.server.core_service import CoreService
from tengig.verdict.models import Target


class OkArgs(ApiInput):
    pass


class OkResult(ApiOutput):
    result: int = Field(description="x")


def test_result_model_must_have_exactly_result():
    class Two(ApiOutput):
        result: int = Field(description="x")
        other: int = Field(description="y")
    with pytest.raises(TypeError, match="exactly one field"):
        api_method(OkArgs, Two, roles=["READONLY_ADMIN"])


def test_roles_must_be_builtin_and_present():
    with pytest.raises(ValueError, match="not middlewared built-in roles"):
        api_method(OkArgs, OkResult, roles=["TENGIG_ADMIN"])
    with pytest.raises(ValueError, match="must name the built-in roles"):
        api_method(OkArgs, OkResult)


def test_job_is_innermost_and_takes_self_job():
    with pytest.raises(TypeError, match=r"\(self, job, \.\.\.\)"):
        job()(lambda self, options: None)
    decorated = api_method(OkArgs, OkResult, roles=["READONLY_ADMIN"])(lambda self, job: 1)
    with pytest.raises(TypeError, match="innermost"):
        job()(decorated)


def test_service_needs_config_names_and_decorated_public_methods():
    with pytest.raises(TypeError, match="class Config"):
        class NoConfigService(Service):
            pass
    with pytest.raises(TypeError, match="not an @api_method"):
        class LooseService(Service):
            class Config:
                namespace = "loose"
                cli_namespace = "loose"

            def helper(self):
                return 1
    with pytest.raises(TypeError, match="must be named WrongNameOkArgs"):
        class WrongNameService(Service):
            class Config:
                namespace = "wrong"
                cli_namespace = "wrong"

            @api_method(OkArgs, OkResult, roles=["READONLY_ADMIN"])
            def ok(self):
                return 1


def test_every_service_module_is_registered():
    modules = {m.name for m in pkgutil.iter_modules(services_pkg.__path__)}
    assert modules == set(services_pkg.SERVICE_MODULES)


def _models(model: type[BaseModel], seen: set) -> list[type[BaseModel]]:
    if model in seen:
        return []
    seen.add(model)
    found = [model]
    for field in model.model_fields.values():
        for arg in [field.annotation, *_flatten(field.annotation)]:
            if isinstance(arg, type) and issubclass(arg, BaseModel):
                found += _models(arg, seen)
    return found


def _flatten(annotation) -> list:
    out = []
    for arg in typing.get_args(annotation):
        out += [arg, *_flatten(arg)]
    return out


@pytest.mark.parametrize("name, entry", sorted(
    Registry.default().with_services(CoreService, AuthService).bind(None).items()))
def test_every_registered_model_follows_the_api_model_rules(name, entry):
    seen: set = set()
    for model in _models(entry.spec.accepts, seen):
        assert model.model_config.get("extra") == "forbid", f"{name}: input {model.__name__} must forbid extra keys"
        assert model.model_config.get("strict") is True, f"{name}: input {model.__name__} must not coerce"
    for model in seen | set(_models(entry.spec.returns, seen)):
        for field_name, field in model.model_fields.items():
            assert field.description, f"{name}: {model.__name__}.{field_name} has no description"


@pytest.mark.parametrize("api, source", [(TenGigResultsEntry, RunRecord), (TenGigResultsEnvironment, Environment),
                                         (TenGigResultsRawOutput, RawOutput), (TenGigTargetsEntry, Target)])
def test_api_entries_publish_every_field_of_their_source_model(api, source):
    assert set(api.model_fields) == set(source.model_fields), "the API model drifted from the stored one"
