"""tengig's own API hosted in this process for one command (server/in_thread.py), and a client of it over a
private unix socket: how `tengig bench`, `tengig results`, `tengig mesh`, `tengig lagg` and `tengig nic` use
the very services the panel and `tengig call` use (front_door.py). ``host``/``port``: also listen there
(bench --join: the desktops join over the network)."""
from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from ..client.client import Client
from ..server.apikeys import ApiKeyStore
from ..server.app import TengigServer
from ..server.in_thread import serving_in_thread

QUIET_PORT = 8610  # not listened on without a host


@contextlib.contextmanager
def in_process_api(*, host: str | None = None, port: int = QUIET_PORT) -> Iterator[Client]:
    with tempfile.TemporaryDirectory(prefix="tengig-api-") as tmp:
        server = TengigServer(host=host, port=port, unix_socket=Path(tmp) / "api.sock", ui_dir=None,
                              api_keys=ApiKeyStore(Path(tmp) / "apikeys.sqlite3"), sweep_orphans=False)
        # the server says "cannot listen on ADDRESS:PORT (...); choose another --port" when it cannot
        with serving_in_thread(server), Client(f"ws+unix://{server.unix_socket}") as api:
            yield api
