"""Headers every HTTP answer of `tengig serve` carries, and every answer of the middlewared plugin's panel
route (`/_plugins/tengig/`): the panel may load only its own scripts and styles, talk only to the host
that served it (its websocket to `/api/current` there counts as 'self'), and never be framed; no
content type is guessed."""
from __future__ import annotations

from aiohttp import web

CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",  # style attributes set by the panel's components
    "img-src 'self' data:",
    "connect-src 'self'",  # a login goes nowhere else, whatever a link makes the page try
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """aiohttp's on_response_prepare signal: before any answer's headers leave."""
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
