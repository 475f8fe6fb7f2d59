"""`python -m tests.server.serve_demo SOCKET [--header-timeout S] [--login-timeout S] [--outbox-bytes N]
[--outbox-stall-seconds S]`:
a TengigServer with the test-only job service, on a random TCP port (printed as 'PORT <n>'), until
SIGTERM; for the shutdown and abuse tests (a process of its own: its RSS and its signals are its own)."""
from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from tengig.api import Registry
from tengig.server.app import HEADER_TIMEOUT_SECONDS, LOGIN_TIMEOUT_SECONDS, OUTBOX_LIMIT_BYTES, TengigServer
from tengig.server.outbox import DEFAULT_STALL_SECONDS

from .demo_services import DemoJobsService


async def main(args: argparse.Namespace) -> None:
    server = TengigServer(host="127.0.0.1", port=0, unix_socket=args.socket, ui_dir=None,
                          registry=Registry.default(DemoJobsService), header_timeout=args.header_timeout,
                          login_timeout=args.login_timeout, outbox_limit_bytes=args.outbox_bytes,
                          outbox_stall_seconds=args.outbox_stall_seconds)
    await server.serve_until_signalled(lambda started: print(f"PORT {started.port}", flush=True))
    print("STOPPED", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("socket", type=Path)
    parser.add_argument("--header-timeout", type=float, default=HEADER_TIMEOUT_SECONDS)
    parser.add_argument("--login-timeout", type=float, default=LOGIN_TIMEOUT_SECONDS)
    parser.add_argument("--outbox-bytes", type=int, default=OUTBOX_LIMIT_BYTES)
    parser.add_argument("--outbox-stall-seconds", type=float, default=DEFAULT_STALL_SECONDS)
    asyncio.run(main(parser.parse_args()))
