"""The panel's static files at /, and plain-text 404s (no JSON) when it is missing or a path is unknown."""
from __future__ import annotations

import asyncio

import aiohttp

from .harness import running_server


def fetch(url: str) -> tuple[int, str, str]:
    async def get():
        async with aiohttp.ClientSession() as session, session.get(url) as response:
            return response.status, response.content_type, await response.text()
    return asyncio.run(get())


def test_serves_the_built_panel(tmp_path):
    ui = tmp_path / "dist"
    (ui / "assets").mkdir(parents=True)
    (ui / "index.html").write_text("<html>tengig panel</html>")
    (ui / "assets" / "app.js").write_text("console.log('tengig')")
    (tmp_path / "secret.txt").write_text("outside the panel")
    with running_server(tmp_path, ui_dir=ui) as srv:
        base = f"http://127.0.0.1:{srv.server.port}"
        assert fetch(base + "/")[0::2] == (200, "<html>tengig panel</html>")
        assert fetch(base + "/assets/app.js")[0] == 200
        status, kind, body = fetch(base + "/nothing.js")
        assert (status, kind) == (404, "text/plain") and not body.startswith("{")
        assert fetch(base + "/../secret.txt")[0] == 404
        assert fetch(base + "/%2e%2e/secret.txt")[0] == 404


def test_missing_panel_is_a_plain_404(tmp_path):
    with running_server(tmp_path, ui_dir=tmp_path / "no-such-dist") as srv:
        status, kind, body = fetch(f"http://127.0.0.1:{srv.server.port}/")
    assert (status, kind) == (404, "text/plain") and "not built" in body
