"""A stand-in for TrueNAS's web server in front of the panel: it serves the built panel under
`/_plugins/tengig/` and passes the websocket at `/api/current` through to a tengig API host, as
TrueNAS serves a plugin's UI next to its middleware. It proves the build uses relative asset paths
and finds the API from the page's own address; it is not TrueNAS (docs/truenas-api.md §2 is the contract)."""
from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
from aiohttp import web

PREFIX = "/_plugins/tengig/"


def plugin_route_app(ui_dir: Path, api_url: str) -> web.Application:
    async def static(request: web.Request) -> web.StreamResponse:
        relative = request.match_info["path"] or "index.html"
        target = (ui_dir / relative).resolve()
        if ui_dir.resolve() not in target.parents or not target.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(target)

    async def api(request: web.Request) -> web.StreamResponse:
        client_ws = web.WebSocketResponse()
        await client_ws.prepare(request)
        async with aiohttp.ClientSession() as session, session.ws_connect(api_url) as upstream:
            async def pump(source, sink):
                async for msg in source:
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        await sink.send_str(msg.data)
                    else:
                        break
                await sink.close()

            await asyncio.gather(pump(client_ws, upstream), pump(upstream, client_ws), return_exceptions=True)
        return client_ws

    app = web.Application()
    app.router.add_get("/api/current", api)
    app.router.add_get(PREFIX + "{path:.*}", static)
    return app
