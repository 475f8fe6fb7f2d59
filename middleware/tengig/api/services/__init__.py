"""tengig's public services. Adding one is one module here (defining ``SERVICE``, its class) and one
name in SERVICE_MODULES; its models go in tengig/api/models/<topic>.py."""
from __future__ import annotations

import importlib

from ..service import Service

SERVICE_MODULES = (
    "bench",
    "bench_session",
    "fix",
    "lagg",
    "mesh",
    "nic",
    "results",
    "targets",
)


def default_services() -> list[type[Service]]:
    """tengig's services, the same on both hosts (tengig's own and the middlewared plugin)."""
    return [importlib.import_module(f"{__name__}.{name}").SERVICE for name in SERVICE_MODULES]
