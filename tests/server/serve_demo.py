"""`python -m tests.server.serve_demo SOCKET`: a TengigServer with the test-only job service, on a
random TCP port (printed as 'PORT <n>'), until SIGTERM; for the shutdown test."""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tengig.api import Registry
from tengig.server.app import TengigServer

from .demo_services import DemoJobsService


async def main(unix_socket: Path) -> None:
    server = TengigServer(host="127.0.0.1", port=0, unix_socket=unix_socket, ui_dir=None,
                          registry=Registry.default(DemoJobsService))
    await server.serve_until_signalled(lambda started: print(f"PORT {started.port}", flush=True))
    print("STOPPED", flush=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
