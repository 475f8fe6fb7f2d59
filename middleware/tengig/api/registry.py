"""Which services a host serves, and the methods they expose.

``Registry.default()`` is tengig's public services (tengig.api.services); tests and hosts add more:
``Registry.default(CountingJobService)``. A host binds a registry to itself with ``bind(middleware)``,
which creates one instance of every service (``self.middleware`` is that host, ``self.seams`` the
registry's seams: where the services act, tengig.systems.seams, the real ones unless given, e.g.
``Registry.default(seams=Seams(bench_system=...))`` in a test) and returns the methods by their full
name, e.g. ``tengig.results.query``.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..systems.seams import DEFAULT_SEAMS, Seams
from .decorators import ApiMethodSpec, JobOptions, job_options, method_spec
from .service import Service, public_method_names


@dataclass(frozen=True)
class MethodEntry:
    """One callable API method, bound to its service instance."""

    name: str
    function: Callable[..., Any]
    spec: ApiMethodSpec
    job: JobOptions | None
    is_async: bool
    description: str


class Registry:
    def __init__(self, services: Iterable[type[Service]], *, seams: Seams | None = None):
        self.services: tuple[type[Service], ...] = tuple(services)
        self.seams: Seams = DEFAULT_SEAMS if seams is None else seams
        seen: dict[str, str] = {}
        for cls in self.services:
            namespace = cls.Config.namespace
            if namespace in seen:
                raise ValueError(f"{cls.__name__} and {seen[namespace]} both claim namespace {namespace!r}")
            seen[namespace] = cls.__name__

    @classmethod
    def default(cls, *extra: type[Service], seams: Seams | None = None) -> "Registry":
        """tengig's public services, plus ``extra`` (host services such as core/auth, test services),
        acting through ``seams`` (default: the real ones)."""
        from .services import default_services

        return cls([*default_services(), *extra], seams=seams)

    def with_services(self, *extra: type[Service]) -> "Registry":
        return Registry([*self.services, *extra], seams=self.seams)

    def with_seams(self, seams: Seams) -> "Registry":
        return Registry(self.services, seams=seams)

    def bind(self, middleware: Any) -> dict[str, MethodEntry]:
        methods: dict[str, MethodEntry] = {}
        for cls in self.services:
            instance = cls(middleware, seams=self.seams)
            for attr in public_method_names(cls):
                function = getattr(instance, attr)
                spec = method_spec(function)
                assert spec is not None  # Service.__init_subclass__ refused undecorated public methods
                name = f"{cls.Config.namespace}.{attr}"
                methods[name] = MethodEntry(
                    name=name,
                    function=function,
                    spec=spec,
                    job=job_options(function),
                    is_async=inspect.iscoroutinefunction(function),
                    description=inspect.getdoc(function) or "",
                )
        return methods
