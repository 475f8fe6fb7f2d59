"""tengig as a TrueNAS SCALE app (24.10+): the docker compose project, and the body of ``app.create``.

The container runs ``tengig serve`` with host networking (it sees the NAS's NICs and serves desktops
on the NAS's addresses) and the host's PID namespace (it sees smbd, whose CPU a SMB run reads); it
reaches middlewared through its unix socket (the host's /var/run/middleware mounted in: 25.04, 25.10
and 26.0 all serve it, while 26.0 serves no 127.0.0.1:6000), and sees the pools through the host path
``/mnt`` mounted with ``rslave`` propagation, so the scratch datasets it makes through the API appear
in it as TrueNAS mounts them. It keeps its results in a host path mounted at /var/lib/tengig, and
reads the TrueNAS API key from a file: a compose secret (a read-only bind mount at /run/secrets/), so
the key is in no argument, no environment variable and not in the compose text TrueNAS stores; only
its path is. ``TENGIG_APP`` tells tengig it runs as the app (systems/app.py).

``render_compose(settings)`` gives the YAML (template ``app/templates/compose.yaml.j2``);
``app_create_body(settings)`` the JSON body for ``app.create`` (``custom_app`` with
``custom_compose_config_string``: the YAML itself, as the UI's "Install via YAML" sends it, so tengig
needs no YAML library).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel, Field, field_validator

from . import __version__

DEFAULT_PORT = 8610
DEFAULT_APP_NAME = "tengig"
DEFAULT_IMAGE = f"tengig:{__version__}"
# middlewared's unix socket, in the host directory mounted at the same path (MIDDLEWARE_RUN_DIR): served
# by 25.04, 25.10 and 26.0 alike (26.0 opens 127.0.0.1:6000 only on a "vendored" system).
MIDDLEWARE_RUN_DIR = "/var/run/middleware"
DEFAULT_TRUENAS_URL = f"ws+unix://{MIDDLEWARE_RUN_DIR}/middlewared.sock"
DEFAULT_POOLS_DIR = "/mnt"   # where TrueNAS mounts its pools (pool.query's path)
CONTAINER_DATA_DIR = "/var/lib/tengig"
APP_MARKER = "truenas-scale"   # TENGIG_APP's value (systems/app.py)
IMAGE_TENGIG = "/opt/tengig/venv/bin/tengig"  # where scripts/build_app_image.sh installs it (the panel inside)
SECRET_NAME = "truenas_api_key"
STOP_GRACE_SECONDS = 15  # tengig serve aborts running jobs and waits up to 10 s for them
# app.create's app_name rule (middlewared AppCreateArgs).
APP_NAME_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
# A docker image reference: [registry[:port]/]path[:tag][@digest], lowercase path.
IMAGE_RE = re.compile(r"^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*"
                      r"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[0-9a-f]{64})?$")
HOST_PATH_RE = re.compile(r"^/[A-Za-z0-9._/ -]*$")


class AppSettings(BaseModel):
    api_key_file: str = Field(description="Host path of the file holding the TrueNAS API key (mode 0600).")
    data_dir: str | None = Field(default=None, description="Host path for the results database "
                                 "(default: the directory of the API key file).")
    port: int = Field(default=DEFAULT_PORT, ge=1, le=65535, description="TCP port of the API and the panel.")
    image: str = Field(default=DEFAULT_IMAGE, description="Image to run (built by `make app-image`).")
    app_name: str = Field(default=DEFAULT_APP_NAME, min_length=1, max_length=40, description="TrueNAS app name.")
    truenas_url: str = Field(default=DEFAULT_TRUENAS_URL, description="middlewared's API, as seen from the NAS.")
    pools_dir: str = Field(default=DEFAULT_POOLS_DIR, description="Host path under which the pools are mounted, "
                           "mounted at the same path in the app (propagation rslave).")

    @field_validator("api_key_file", "data_dir", "pools_dir")
    @classmethod
    def _host_path(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if not HOST_PATH_RE.fullmatch(value) or ".." in PurePosixPath(value).parts or value == "/":
            raise ValueError("must be an absolute host path (letters, digits, '._- /'; no '..')")
        return str(PurePosixPath(value))

    @field_validator("image")
    @classmethod
    def _image(cls, value: str) -> str:
        if not IMAGE_RE.fullmatch(value):
            raise ValueError("must be a docker image reference such as tengig:0.1.0")
        return value

    @field_validator("app_name")
    @classmethod
    def _app_name(cls, value: str) -> str:
        if not APP_NAME_RE.fullmatch(value):
            raise ValueError("lowercase letters, digits and '-', starting with a letter, not ending with '-'")
        return value

    @field_validator("truenas_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not re.fullmatch(r"wss?://[A-Za-z0-9.:\[\]-]+(:[0-9]+)?(/[A-Za-z0-9._/-]*)?", value) and \
                not re.fullmatch(r"ws\+unix:///[A-Za-z0-9._/-]+", value):
            raise ValueError("must be a ws://, wss:// or ws+unix:// URL")
        return value

    @property
    def host_data_dir(self) -> str:
        return self.data_dir or str(PurePosixPath(self.api_key_file).parent)


def serve_command(port: int) -> list[str]:
    """What the container runs: the API and the panel (the wheel's own) on every address of the NAS."""
    return [IMAGE_TENGIG, "serve", "--host", "0.0.0.0", "--port", str(port)]


def healthcheck_command() -> list[str]:
    """core.ping over the container's unix socket, where root needs no key."""
    return ["CMD", IMAGE_TENGIG, "call", "--timeout", "5", "core.ping"]


def _yaml_str(value: Any) -> str:
    """A YAML double-quoted scalar (a JSON string is one), so no value can change the document."""
    return json.dumps(str(value))


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(loader=PackageLoader("tengig", "app/templates"), undefined=StrictUndefined, autoescape=False,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["yaml_str"] = _yaml_str
    return env


def render_compose(settings: AppSettings) -> str:
    """The compose YAML for ``settings``."""
    return _environment().get_template("compose.yaml.j2").render(
        version=__version__,
        app_name=settings.app_name,
        image=settings.image,
        command=serve_command(settings.port),
        healthcheck=healthcheck_command(),
        truenas_url=settings.truenas_url,
        app_marker=APP_MARKER,
        pools_dir=settings.pools_dir,
        middleware_run_dir=MIDDLEWARE_RUN_DIR,
        unix_socket_url=settings.truenas_url.startswith("ws+unix://"),
        secret_name=SECRET_NAME,
        api_key_file=settings.api_key_file,
        data_dir=settings.host_data_dir,
        container_data_dir=CONTAINER_DATA_DIR,
        stop_grace_seconds=STOP_GRACE_SECONDS,
    )


def app_create_body(settings: AppSettings) -> dict[str, Any]:
    """The argument of middlewared's ``app.create`` for a custom app running ``settings``."""
    return {
        "app_name": settings.app_name,
        "custom_app": True,
        "custom_compose_config_string": render_compose(settings),
    }
