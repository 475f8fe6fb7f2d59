"""Does the middlewared plugin satisfy the rules middlewared checks when it imports a plugin
(docs/truenas-api.md §1, 25.04/25.10)? ``check_plugin(services)`` lists every violation, one string each,
starting with the rule's tag in brackets, e.g. ``[result-one-field] tengig.bench.run: ...``.

``services`` are ServicePlans (tengig.plugin_spec) or service classes (planned here). A class need
not be a tengig Service: the checker must judge what tengig's own import-time checks would refuse.
"""
from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Iterator

from pydantic import BaseModel

from .api.decorators import BUILTIN_ROLES
from .plugin_spec import MIDDLEWARED_MODEL_METHODS, ServicePlan, plan_service

# middlewared's built-in roles (one list, in api/decorators.py, where @api_method checks them too).

# Rule tags (one per docs/truenas-api.md §1 rule).
RESULT_ONE_FIELD = "result-one-field"
MODEL_NAME = "model-name"
MODEL_MODULE = "model-module"
BUILTIN_ROLE = "builtin-role"
CONFIG_NAMESPACE = "config-namespace"
JOB_SIGNATURE = "job-signature"
APP_SIGNATURE = "app-signature"
FIELD_DESCRIPTION = "field-description"
INPUT_FORBIDS_EXTRA = "input-forbids-extra"
MODEL_BASE = "model-base"
RULES = (RESULT_ONE_FIELD, MODEL_NAME, MODEL_MODULE, BUILTIN_ROLE, CONFIG_NAMESPACE, JOB_SIGNATURE,
         APP_SIGNATURE, FIELD_DESCRIPTION, INPUT_FORBIDS_EXTRA, MODEL_BASE)

MODEL_MODULE_PREFIX = "middlewared.api."


def camel(method_name: str) -> str:
    """middlewared's conversion (service/base.py): ``''.join(word.capitalize() for word in name.split('_'))``."""
    return "".join(word.capitalize() for word in method_name.split("_"))


def rule_of(violation: str) -> str:
    """'[model-name] ...' -> 'model-name'."""
    return violation[1:violation.index("]")]


def check_plugin(services: Iterable[ServicePlan | type], model_base: type[BaseModel] | None = None) -> list[str]:
    """``model_base``: middlewared's BaseModel, for service classes planned here (a plan carries its own)."""
    violations: list[str] = []
    for service in services:
        plan = service if isinstance(service, ServicePlan) else plan_service(service, model_base=model_base)
        violations.extend(_check_service(plan))
    return violations


def _check_service(plan: ServicePlan) -> Iterator[str]:
    def v(rule: str, where: str, message: str) -> str:
        return f"[{rule}] {where}: {message}"

    if not plan.namespace:
        yield v(CONFIG_NAMESPACE, plan.class_name, "Config has no namespace")
    if not plan.cli_namespace:
        yield v(CONFIG_NAMESPACE, plan.class_name, "Config has no cli_namespace")
    stem = plan.class_name.removesuffix("Service")
    for method in plan.methods:
        where = method.full_name
        fields = list(method.returns.model_fields)
        if fields != ["result"]:
            yield v(RESULT_ONE_FIELD, where, f"{method.returns.__name__} must have exactly one field 'result', has {fields}")
        expected = stem + camel(method.name)
        for model, suffix in ((method.accepts, "Args"), (method.returns, "Result")):
            if model.__name__ != expected + suffix:
                yield v(MODEL_NAME, where, f"model {model.__name__} must be named {expected + suffix}")
            missing = [name for name in MIDDLEWARED_MODEL_METHODS if not callable(getattr(model, name, None))]
            if missing:
                yield v(MODEL_BASE, where, f"{model.__name__} lacks {', '.join(missing)}: it must derive from "
                        "middlewared.api.base.BaseModel (middlewared exits at startup otherwise)")
            if not model.__module__.startswith(MODEL_MODULE_PREFIX):
                yield v(MODEL_MODULE, where, f"{model.__name__}.__module__ is {model.__module__!r}, "
                        f"must start with {MODEL_MODULE_PREFIX!r}")
        if method.authentication_required and not method.roles:
            yield v(BUILTIN_ROLE, where, "a public method must name built-in roles")
        if not method.authentication_required and method.roles:
            yield v(BUILTIN_ROLE, where, "a method callable before login cannot name roles (middlewared refuses both)")
        for role in method.roles:
            if role not in BUILTIN_ROLES:
                yield v(BUILTIN_ROLE, where, f"role {role!r} is not a middlewared built-in role")
        if method.job is not None and tuple(method.parameters[:2]) != ("self", "job"):
            yield v(JOB_SIGNATURE, where, f"a job method must take (self, job, ...), takes ({', '.join(method.parameters)})")
        if method.pass_app and (method.job is not None or not method.is_async
                                or tuple(method.parameters[:2]) != ("self", "app")):
            yield v(APP_SIGNATURE, where, "a method given the connection must be async, not a job, and take "
                    f"(self, app, ...); takes ({', '.join(method.parameters)})")
        for model in (method.accepts, method.returns):
            for owner, name in _fields_without_description(model):
                yield v(FIELD_DESCRIPTION, where, f"{owner}.{name} has no description")
        for model in _models_in(method.accepts):
            if model.model_config.get("extra") != "forbid":
                yield v(INPUT_FORBIDS_EXTRA, where, f"input model {model.__name__} does not forbid extra keys")


def _nested_models(annotation: typing.Any) -> Iterator[type[BaseModel]]:
    """The pydantic models inside an annotation (list[X], X | None, dict[str, X], Annotated[X, ...])."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    if isinstance(annotation, (types.GenericAlias, types.UnionType)) or typing.get_origin(annotation) is not None:
        for arg in typing.get_args(annotation):
            yield from _nested_models(arg)


def _models_in(model: type[BaseModel]) -> list[type[BaseModel]]:
    """``model`` and every model reachable through its fields, each once."""
    seen: list[type[BaseModel]] = []
    todo = [model]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        for field in current.model_fields.values():
            todo.extend(_nested_models(field.annotation))
    return seen


def _fields_without_description(model: type[BaseModel]) -> Iterator[tuple[str, str]]:
    for current in _models_in(model):
        for name, field in current.model_fields.items():
            if not (field.description or "").strip():
                yield current.__name__, name
