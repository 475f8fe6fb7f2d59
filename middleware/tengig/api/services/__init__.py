"""tengig's public services. Adding one is one module here (defining ``SERVICE``, its class) and one
name in SERVICE_MODULES; its models go in tengig/api/models/<topic>.py."""
from __future__ import annotations

import importlib

from ..service import Service

SERVICE_MODULES = (
    "bench",
    "lagg",
    "mesh",
    "nic",
    "results",
    "targets",
)


# Served by tengig's own host only, not by the middlewared plugin: desktops that join a benchmark log in
# with the run's token (auth.login_ex TOKEN_PLAIN), which only tengig's host knows; middlewared's
# TOKEN_PLAIN is its own auth.generate_token, and its methods must name roles a join token has none of.
HOST_SERVICE_MODULES = (
    "bench_session",
)


def default_services(*, host: bool = True) -> list[type[Service]]:
    """tengig's services: every one (``host``: tengig's own API host), or those the middlewared plugin
    registers (``host=False``)."""
    names = SERVICE_MODULES + (HOST_SERVICE_MODULES if host else ())
    return [importlib.import_module(f"{__name__}.{name}").SERVICE for name in names]
