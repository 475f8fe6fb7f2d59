"""``Service``: a group of API methods under one namespace, declared as middlewared declares it.

    class TenGigResultsService(Service):
        class Config:
            namespace = "tengig.results"
            cli_namespace = "tengig.results"

The class is checked when it is defined (as middlewared checks a plugin at import): it has a
Config with both namespaces, every public method is an ``@api_method``, and its models are named
``<ClassNameWithoutService><CamelMethod>Args`` / ``...Result`` (the 25.10 rule).
"""
from __future__ import annotations

import re
from typing import Any

from ..systems.seams import DEFAULT_SEAMS, Seams
from .decorators import method_spec

NAMESPACE_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")


def camel(method_name: str) -> str:
    """'get_jobs' -> 'GetJobs', 'login_with_api_key' -> 'LoginWithApiKey'."""
    return "".join(part[:1].upper() + part[1:] for part in method_name.split("_"))


class Service:
    """Base of every service. ``self.middleware`` is the host: ``await self.middleware.call(name, ...)``
    from async code, ``self.middleware.call_sync(name, ...)`` from a sync body (it runs in a thread).
    ``self.seams`` is where the service acts (tengig.systems.seams): given by the host that builds it
    (tengig's own host: its Registry's), the real ones when not given (middlewared builds each
    service as ``cls(middleware)``)."""

    class Config:
        namespace = ""
        cli_namespace = ""

    def __init__(self, middleware: Any, seams: Seams | None = None):
        self.middleware = middleware
        self.seams = DEFAULT_SEAMS if seams is None else seams

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        config = cls.__dict__.get("Config")
        namespace = getattr(config, "namespace", "")
        if not config or not NAMESPACE_RE.fullmatch(namespace or "") or not getattr(config, "cli_namespace", ""):
            raise TypeError(f"{cls.__name__} needs `class Config: namespace = ...; cli_namespace = ...`")
        if not cls.__name__.endswith("Service"):
            raise TypeError(f"service class {cls.__name__} must end with 'Service'")
        stem = cls.__name__[: -len("Service")]
        for name in public_method_names(cls):
            spec = method_spec(getattr(cls, name))
            if spec is None:
                raise TypeError(f"{cls.__name__}.{name} is public but not an @api_method; rename it _{name}")
            expected = f"{stem}{camel(name)}"
            for model, suffix in ((spec.accepts, "Args"), (spec.returns, "Result")):
                if model.__name__ != expected + suffix:
                    raise TypeError(
                        f"{cls.__name__}.{name}: model {model.__name__} must be named {expected + suffix} "
                        "(middlewared 25.10 naming rule)"
                    )


def public_method_names(cls: type) -> list[str]:
    """The names a service exposes: callables not starting with '_' (sorted), excluding Service's own."""
    return sorted(
        name for name in dir(cls)
        if not name.startswith("_") and name not in vars(Service) and callable(getattr(cls, name))
        and name != "Config"
    )
