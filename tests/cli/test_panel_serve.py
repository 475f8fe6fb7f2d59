"""The end of `tengig demo`: the panel served by tengig's own host, checked, its URL and a fresh key
printed; stopped again when not interactive (a CI run must not hang)."""
from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from tengig.cli.panel_serve import serve_panel
from tengig.errors import TengigError
from tengig.server.apikeys import ApiKeyStore

UI_DIST = Path(__file__).resolve().parents[2] / "ui" / "dist"


@pytest.fixture(autouse=True)
def own_db(tmp_path, monkeypatch):
    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "results.sqlite3"))


def _serve(port: int, ui_dir: Path) -> tuple[str, list[str]]:
    lines: list[str] = []
    url = asyncio.run(serve_panel(port, interactive=False, ui_dir=ui_dir, echo=lines.append))
    return url, lines


@pytest.mark.skipif(not (UI_DIST / "index.html").is_file(), reason="ui/dist is not built (make setup builds it)")
def test_prints_the_url_and_a_key_that_logs_in_then_stops():
    url, lines = _serve(0, UI_DIST)
    assert f"panel: {url}" in lines
    [key_line] = [line for line in lines if line.startswith("API key (user root): ")]
    key = key_line.split(": ", 1)[1]
    assert ApiKeyStore().verify(key, username="root") is not None
    assert "stdout is not a terminal" in lines[-1]
    with socket.socket() as probe:  # stopped: nothing listens there any more
        assert probe.connect_ex(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/")))) != 0


@pytest.mark.skipif(not (UI_DIST / "index.html").is_file(), reason="ui/dist is not built (make setup builds it)")
def test_a_second_demo_revokes_the_first_key_and_a_taken_port_is_avoided():
    _, first = _serve(0, UI_DIST)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        url, second = _serve(taken, UI_DIST)
    assert f"note: port {taken} is taken; serving on a free port instead" in second
    assert not url.endswith(f":{taken}/")
    old_key = next(line for line in first if line.startswith("API key")).split(": ", 1)[1]
    assert ApiKeyStore().verify(old_key) is None


def test_an_unbuilt_panel_is_an_error_that_says_what_to_do(tmp_path):
    with pytest.raises(TengigError, match="not built.*make setup"):
        _serve(0, tmp_path)
