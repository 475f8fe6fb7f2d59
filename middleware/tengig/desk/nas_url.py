"""The NAS's API as a desktop reaches it, checked before anything connects or is written: ws:// or wss://,
a host name or IP address (an IPv6 zone id only as an interface name: it goes into the Windows kit's
PowerShell and into the addresses a desktop runs its tools against), an optional port, no path but the
API's. ``nas_uri`` for `tengig client kit --nas` and the panel's kit, ``join_uri`` for `tengig client
join URL` (which also takes the NAS's bare name or name:port)."""
from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import urlsplit

from ..errors import ValidationError

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_RE = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*$")
# fe80::1%eth0 (Linux), %en0 (macOS), %12 (Windows: the interface's index)
ZONE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,15}$")
API_PATH = "/api/current"


def no_control(field: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValidationError.one(field, f"{value!r} is not text")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value):
        raise ValidationError.one(field, f"{value!r} holds control characters")
    return value


def _host(field: str, url: str, host: str, bracketed: bool) -> None:
    if not bracketed:
        if not HOST_RE.fullmatch(host):
            raise ValidationError.one(field, f"{host!r} is not a host name or IPv4 address")
        return
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        raise ValidationError.one(field, f"{host!r} is not an IPv6 address") from None
    address, _, zone = host.partition("%")
    if zone and not ZONE_RE.fullmatch(zone):
        raise ValidationError.one(field, f"{url!r}: the zone of {address} must be an interface name or index "
                                  f"(letters, digits, _.-, like %eth0 or %12), not {zone!r}")


def nas_uri(url: str, *, field: str = "nas") -> tuple[str, str]:
    """'ws://nas:8610' -> ('ws://nas:8610/api/current', 'nas'); ValidationError naming ``field``."""
    no_control(field, url)
    if not url.isascii():
        raise ValidationError.one(field, f"{url!r} holds characters that are not ASCII (write a host name as "
                                  "its xn-- form or use the NAS's IP address)")
    usage = f"{url!r} is not ws://HOST[:PORT] or wss://HOST[:PORT]"
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ValidationError.one(field, usage) from None
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        raise ValidationError.one(field, usage)
    if parts.path not in ("", "/", API_PATH) or parts.query or parts.fragment or "@" in parts.netloc:
        raise ValidationError.one(field, f"{url!r} has more than a host and port (no user, path or query)")
    try:
        host, port = parts.hostname or "", parts.port
    except ValueError:
        raise ValidationError.one(field, f"{url!r} has a port that is not a number from 1 to 65535") from None
    if port == 0:
        raise ValidationError.one(field, f"{url!r} has port 0")
    bracketed = parts.netloc.startswith("[")
    _host(field, url, host, bracketed)
    netloc = parts.netloc if bracketed else parts.netloc.lower()
    return f"{parts.scheme}://{netloc}{API_PATH}", host


def join_uri(url: str) -> tuple[str, str]:
    """`tengig client join URL`: ws://NAS[:PORT], wss://NAS[:PORT] or the NAS's name[:PORT] (ws://)."""
    return nas_uri(url if "://" in url else f"ws://{url}", field="URL")
