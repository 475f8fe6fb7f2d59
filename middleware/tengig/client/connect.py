"""``connect(target, api_key)``: a logged-in Client to any TrueNAS (or tengig host), whichever protocol it
speaks. ``/api/current`` (JSON-RPC 2.0, TrueNAS 25.04+) is tried first; a server without a websocket
there (TrueNAS 24.10, CORE 13.x answer the HTTP upgrade with an error status) is tried at
``/websocket`` (legacy protocol). A server that does not answer at all is not retried: that is an
unreachable host, not an old one.

Login (Client.login_with_api_key): SCRAM through ``auth.login_ex`` where the server offers it (TrueNAS 26);
else the plain key, only over a secure transport: ``auth.login_ex`` with API_KEY_PLAIN on JSON-RPC (falling back
to ``auth.login_with_api_key`` if the method is missing), ``auth.login_with_api_key`` on the legacy protocol
(24.10 has no login_ex).
"""
from __future__ import annotations

import errno
from urllib.parse import urlsplit

from .client import CALL_TIMEOUT, UNIX_PREFIX, Client
from .errors import ClientError
from .wire import JSONRPC_PATH, LEGACY_PATH

ENOMETHOD = 201  # middlewared's "method not found" errno
METHOD_NOT_FOUND = -32601


def candidate_uris(target: str) -> list[str]:
    """The URIs to try, in order. 'nas', 'nas:8080', 'ws://nas', 'wss://nas' -> /api/current then
    /websocket; a URI with a path, or a ws+unix:// one, is used as it is."""
    if target.startswith(UNIX_PREFIX):
        return [target]
    if "://" not in target:
        target = f"ws://{target}"
    usage = f"{target!r} is not a host, host:port or ws(s):// URI"
    try:
        parts = urlsplit(target)
    except ValueError:  # e.g. an unclosed [ of an IPv6 address
        raise ClientError(usage, errno=errno.EINVAL) from None
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        raise ClientError(usage, errno=errno.EINVAL)
    if parts.path not in ("", "/"):
        return [target]
    base = f"{parts.scheme}://{parts.netloc}"
    return [f"{base}{JSONRPC_PATH}", f"{base}{LEGACY_PATH}"]


def connect(target: str, api_key: str, *, username: str = "root", call_timeout: float = CALL_TIMEOUT,
            plain_key_in_clear: bool = False) -> Client:
    """A Client connected to ``target`` and logged in with ``api_key`` (ClientError EACCES if refused;
    ``plain_key_in_clear``: Client's)."""
    uris = candidate_uris(target)
    for index, uri in enumerate(uris):
        try:
            client = Client(uri, call_timeout=call_timeout, plain_key_in_clear=plain_key_in_clear)
        except ClientError as exc:
            if exc.errno == errno.EPROTONOSUPPORT and index + 1 < len(uris):
                continue
            raise
        try:
            log_in(client, api_key, username)
        except BaseException:
            client.close()
            raise
        return client
    raise AssertionError("unreachable: the last candidate either connects or raises")


def log_in(client: Client, api_key: str, username: str = "root") -> None:
    if client.wire.name == "legacy":
        client.login_with_api_key(api_key)
        return
    try:
        client.login_with_api_key(api_key, username)
    except ClientError as exc:
        if exc.errno != ENOMETHOD and exc.code != METHOD_NOT_FOUND:
            raise
        client.login_with_api_key(api_key)
