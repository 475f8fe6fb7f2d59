"""The end of `tengig demo`: serve the panel (tengig's API host and the built ui/dist) and print its
URL with a fresh API key to log in with. In a terminal it serves until Ctrl-C; otherwise (CI, a pipe)
it checks that the panel answers, prints the URL and stops, so a non-interactive demo never hangs."""
from __future__ import annotations

import asyncio
import errno
import signal
from collections.abc import Callable
from pathlib import Path

import aiohttp
import click

from ..errors import TengigError

DEMO_KEY_NAME = "demo"


def fresh_demo_key() -> str:
    """A new key named 'demo' (the plain key is only known when it is created; the old one is revoked)."""
    from ..server.apikeys import ApiKeyStore

    store = ApiKeyStore()
    if any(k.name == DEMO_KEY_NAME for k in store.list()):
        store.delete(DEMO_KEY_NAME)
    return store.create(DEMO_KEY_NAME)[1]


async def _check_panel(url: str) -> None:
    """The panel's index page and the API answer, or a TengigError that says what to do."""
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(url, timeout=aiohttp.ClientTimeout(total=10)) as page:
                body = await page.text()
            async with session.ws_connect(url.replace("http", "ws", 1) + "api/current") as ws:
                await ws.send_json({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": []})
                pong = (await ws.receive_json(timeout=10)).get("result")
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        raise TengigError(f"the panel at {url} does not answer ({exc})") from exc
    if page.status != 200 or 'id="app"' not in body:
        raise TengigError(f"the panel at {url} is not built (HTTP {page.status}); run `make setup` to build ui/dist")
    if pong != "pong":
        raise TengigError(f"the API at {url}api/current did not answer core.ping (got {pong!r})")


async def serve_panel(port: int, interactive: bool, ui_dir: Path | None = None,
                      echo: Callable[[str], None] = click.echo) -> str:
    """Serve on 127.0.0.1:`port` (any free port if it is taken); return the URL once stopped."""
    from ..panel_files import panel_dir
    from ..server.app import TengigServer

    key = fresh_demo_key()
    ui_dir = ui_dir or panel_dir()
    server = TengigServer(host="127.0.0.1", port=port, unix_socket=None, ui_dir=ui_dir)
    try:
        await server.start()
    except TengigError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        await server.stop()
        echo(f"note: port {port} is taken; serving on a free port instead")
        server = TengigServer(host="127.0.0.1", port=0, unix_socket=None, ui_dir=ui_dir)
        await server.start()
    url = f"http://127.0.0.1:{server.port}/"
    try:
        await _check_panel(url)
        echo("")
        echo(f"panel: {url}")
        echo(f"API key (user root): {key}")
        if interactive:
            echo("serving the panel with the lab up; Ctrl-C stops both")
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
        else:
            echo("stdout is not a terminal: the panel answered and is stopped again "
                 "(`tengig demo --serve` keeps it up, `tengig serve` serves it on its own)")
    finally:
        await server.stop()
    return url
