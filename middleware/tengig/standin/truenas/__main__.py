"""``python -m tengig.standin.truenas --version 25.04 --port 8620``: run a stand-in TrueNAS (not
TrueNAS; docs/truenas-api.md §3/§4) seeded with example_seed, print its URL and API key, serve until Ctrl-C."""
from __future__ import annotations

import argparse
import asyncio
import signal

from .seed import VERSION_TEXT, example_seed
from .server import running_standin


async def _serve(release: str, host: str, port: int) -> None:
    async with running_standin(example_seed(release), host=host, port=port) as nas:
        print(f"stand-in TrueNAS {nas.state.network.version.text} (not a real TrueNAS)", flush=True)
        print(f"url: {nas.url}", flush=True)
        print(f"api_key: {nas.api_key}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tengig.standin.truenas", description=__doc__)
    parser.add_argument("--version", choices=sorted(VERSION_TEXT), default="25.04", help="release to play")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    parser.add_argument("--port", type=int, default=8620, help="TCP port (0: any free port)")
    args = parser.parse_args(argv)
    asyncio.run(_serve(args.version, args.host, args.port))


if __name__ == "__main__":
    main()
