"""A TengigServer on its own event loop in a thread, for as long as a block runs: how a command that is a
client of tengig's own services (`tengig bench`) hosts them in its own process."""
from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from .app import TengigServer

START_SECONDS = 60


@contextlib.contextmanager
def serving_in_thread(server: TengigServer, *, grace_seconds: float = 5) -> Iterator[TengigServer]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="tengig-server", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(START_SECONDS)
        try:
            yield server
        finally:
            asyncio.run_coroutine_threadsafe(server.stop(grace_seconds=grace_seconds), loop).result(
                grace_seconds + START_SECONDS)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
