"""What the middlewared plugin declares, computed without middlewared (so it can be tested anywhere).

``build_plan()`` turns tengig's service classes (tengig.api.services.default_services()) into one
``ServicePlan`` per class: the class name, the Config namespaces, and per public method the
re-parented Args/Result models, the roles, the JobOptions and the parameter names. The plugin file
(middleware/middlewared_plugin/tengig_plugin.py) only turns a plan into middlewared classes;
tengig.plugin_conformance checks a plan against docs/truenas-api.md §1.

Models are re-parented, never mutated: each is a subclass with the same name and fields whose
``__module__`` is ``PLUGIN_MODEL_MODULE`` (middlewared refuses public models outside
``middlewared.api.``) and which, inside middlewared, also derives from middlewared's own
``middlewared.api.base.BaseModel`` (``model_base``): middlewared calls ``schema_model_fields``,
``from_previous`` and ``to_previous`` on every method model when it builds its API at startup, so
a plain pydantic model passes every import-time rule and then stops middlewared. tengig's own
classes keep their module and bases.
"""
from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .api.decorators import JobOptions, job_options, method_spec
from .api.models.base import ApiOutput
from .api.service import Service, public_method_names

PLUGIN_MODEL_MODULE = "middlewared.api.tengig"

# What middlewared calls on every method model while it builds its API (api/base/model.py BaseModel).
MIDDLEWARED_MODEL_METHODS = ("schema_model_fields", "from_previous", "to_previous")

_reparented: dict[tuple[type[BaseModel], str, type | None], type[BaseModel]] = {}


def reparent(model: type[BaseModel], module: str = PLUGIN_MODEL_MODULE,
             model_base: type[BaseModel] | None = None) -> type[BaseModel]:
    """A subclass of ``model`` (and of ``model_base``, middlewared's BaseModel, when given) with the
    same name, fields and doc whose ``__module__`` is ``module``; one per model, module and base, so
    a model used by two methods is one class. The metaclass is the most derived of the bases'
    (middlewared's derives from pydantic's)."""
    key = (model, module, model_base)
    if key not in _reparented:
        bases = (model,) if model_base is None else (model, model_base)
        namespace = {"__module__": module, "__qualname__": model.__name__, "__doc__": model.__doc__}
        if model_base is not None and issubclass(model, ApiOutput):
            # middlewared's BaseModel caps every string at 1024 characters, which would then cap a result's
            # own text (tengig.results.export's document): a result's strings are as long as tengig made them
            namespace["model_config"] = {**model_base.model_config, "str_max_length": None}
        _reparented[key] = types.new_class(model.__name__, bases, {}, lambda ns: ns.update(namespace))
    return _reparented[key]


@dataclass(frozen=True)
class MethodPlan:
    name: str                          # attribute name: "run"
    full_name: str                     # "tengig.bench.run"
    function: Callable[..., Any]       # tengig's function (unbound)
    accepts: type[BaseModel]           # re-parented Args
    returns: type[BaseModel]           # re-parented Result
    roles: tuple[str, ...]
    authentication_required: bool      # False: callable before any login (roles then empty)
    pass_app: bool                     # the function takes the calling connection after self
    rate_limit: bool                   # middlewared's per-address limit on calls before login
    job: JobOptions | None
    is_async: bool
    parameters: tuple[str, ...]        # of tengig's function, "self" first
    doc: str


@dataclass(frozen=True)
class ServicePlan:
    class_name: str                    # "TenGigBenchService" (the middlewared class gets the same name)
    source: type                       # tengig's service class
    namespace: str
    cli_namespace: str
    methods: tuple[MethodPlan, ...]
    doc: str


def plan_service(cls: type[Service], module: str = PLUGIN_MODEL_MODULE,
                 model_base: type[BaseModel] | None = None) -> ServicePlan:
    methods = []
    for name in public_method_names(cls):
        function = getattr(cls, name)
        spec = method_spec(function)
        if spec is None:  # tengig's Service refuses this at class definition; a plan cannot express it
            raise TypeError(f"{cls.__name__}.{name} is public but not an @api_method")
        methods.append(MethodPlan(
            name=name,
            full_name=f"{cls.Config.namespace}.{name}",
            function=function,
            accepts=reparent(spec.accepts, module, model_base),
            returns=reparent(spec.returns, module, model_base),
            roles=tuple(spec.roles),
            authentication_required=spec.authentication_required,
            pass_app=spec.pass_app,
            rate_limit=spec.rate_limit,
            job=job_options(function),
            is_async=inspect.iscoroutinefunction(function),
            parameters=tuple(inspect.signature(function).parameters),
            doc=inspect.getdoc(function) or "",
        ))
    config = cls.Config
    return ServicePlan(
        class_name=cls.__name__, source=cls,
        namespace=getattr(config, "namespace", "") or "", cli_namespace=getattr(config, "cli_namespace", "") or "",
        methods=tuple(methods), doc=inspect.getdoc(cls) or "",
    )


def build_plan(services: Iterable[type[Service]] | None = None,
               model_base: type[BaseModel] | None = None) -> list[ServicePlan]:
    """The plan for ``services`` (default: tengig's public services); ``model_base`` is
    middlewared's BaseModel when the plan is for middlewared."""
    if services is None:
        from .api.services import default_services

        services = default_services()
    return [plan_service(cls, model_base=model_base) for cls in services]


def method_names(plan: Iterable[ServicePlan]) -> list[str]:
    return sorted(method.full_name for service in plan for method in service.methods)
