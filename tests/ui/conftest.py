"""A real tengig API host (TengigServer with tengig's public services) serving the production build
of the panel, with its own results database and API key (tests/server/harness.py)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tengig.api import Registry

from ..server.harness import RunningServer, running_server
from .browser import UI_DIST, require_browser


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> Iterator[RunningServer]:
    require_browser()
    with running_server(tmp_path_factory.mktemp("panel"), ui_dir=UI_DIST, registry=Registry.default()) as server:
        yield server


def page_url(server: RunningServer, path: str = "/") -> str:
    return f"http://127.0.0.1:{server.server.port}{path}"
