"""A real tengig API host (TengigServer with tengig's public services) serving the production build
of the panel, with its own results database and API key (tests/server/harness.py); the same build
behind a stand-in of TrueNAS's plugin route; a websocket logger on another port."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tengig.api import Registry

from ..server.harness import RunningServer, running_server
from .browser import UI_DIST, require_browser
from .plugin_route import PREFIX, plugin_route_app
from .served import serving
from .ws_logger import WsLogger, ws_logger


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> Iterator[RunningServer]:
    require_browser()
    with running_server(tmp_path_factory.mktemp("panel"), ui_dir=UI_DIST, registry=Registry.default()) as server:
        yield server


def page_url(server: RunningServer, path: str = "/") -> str:
    return f"http://127.0.0.1:{server.server.port}{path}"


@pytest.fixture
def plugin_route(panel) -> Iterator[str]:
    """The panel at /_plugins/tengig/ on another port, the API passed through at /api/current."""
    with serving(plugin_route_app(UI_DIST, panel.url)) as port:
        yield f"http://127.0.0.1:{port}{PREFIX}"


@pytest.fixture
def logger() -> Iterator[WsLogger]:
    with ws_logger() as server:
        yield server
