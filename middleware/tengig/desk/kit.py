"""``tengig client kit --os windows``: a PowerShell script that makes a Windows desktop join one run.

The script (templates/join-windows.ps1.j2) has the NAS's URL, the run's token and the share baked in
and does what ``tengig client join`` does (desk/join.py), with Windows' own tools: iperf3.exe and
robocopy /J (unbuffered) to the share. It speaks join protocol v2, which works on tengig's own API host
and inside TrueNAS's middlewared alike: no login (the token is ``tengig.bench.session.join``'s first
param), and no message it sends is over MESSAGE_LIMIT bytes (a long submission goes in parts, each with
``more``, the last with ``more`` false). Every value is validated here and written into the script as a
single-quoted PowerShell string; the instruction checks (desk/instructions.py) are written into it from
the same Python constants, so they exist once."""
from __future__ import annotations

import ipaddress
import re
import unicodedata
from functools import lru_cache
from urllib.parse import urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined

from .. import __version__
from ..errors import ValidationError
from ..names import SHARE_RE
from .instructions import IPERF3_LIMITS, MAX_FILE_BYTES, MIN_FILE_BYTES, REMOTE_RE
from .join import FRAME_BUDGET
from .submit_parts import FIRST_SLICE, MESSAGE_LIMIT  # the kit splits its submissions as tengig client join does

TOKEN_RE = re.compile(r"^tgb-[0-9a-f]{48}$")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_RE = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*$")
API_PATH = "/api/current"
KIT_OSES = ("windows",)
DEFAULT_OUT = "tengig-join.ps1"
# PowerShell ends a single-quoted string at any of these, not only at the ASCII quote.
PS_QUOTES = ("'", "\u2018", "\u2019", "\u201a", "\u201b")


def ps_quote(value: str) -> str:
    """A PowerShell single-quoted literal of ``value`` (every kind of single quote doubled)."""
    for quote in PS_QUOTES:
        value = value.replace(quote, quote * 2)
    return f"'{value}'"


def _no_control(field: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValidationError.one(field, f"{value!r} is not text")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value):
        raise ValidationError.one(field, f"{value!r} holds control characters")
    return value


def check_os(value: str) -> str:
    if value not in KIT_OSES:
        raise ValidationError.one("os", f"there is no kit for {value!r} (only windows); on Linux or macOS, "
                                  "install tengig and run `tengig client join URL --token T`")
    return value


def check_token(value: str) -> str:
    if not TOKEN_RE.fullmatch(_no_control("token", value)):
        raise ValidationError.one("token", "not a join token (tgb- and 48 hex digits, as the NAS's run shows it)")
    return value


def check_share(value: str) -> str:
    if not SHARE_RE.fullmatch(_no_control("share", value)):
        raise ValidationError.one("share", f"{value!r} is not an SMB share name (allowed: {SHARE_RE.pattern})")
    return value


def nas_uri(url: str) -> tuple[str, str]:
    """'ws://nas:8610' -> ('ws://nas:8610/api/current', 'nas'). Only ws:// or wss://, a host name or IP
    address, an optional port, and no path but the API's."""
    _no_control("nas", url)
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ValidationError.one("nas", f"{url!r} is not ws://HOST[:PORT] or wss://HOST[:PORT]") from None
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        raise ValidationError.one("nas", f"{url!r} is not ws://HOST[:PORT] or wss://HOST[:PORT]")
    if parts.path not in ("", "/", API_PATH) or parts.query or parts.fragment or "@" in parts.netloc:
        raise ValidationError.one("nas", f"{url!r} has more than a host and port (no user, path or query)")
    try:
        host, port = parts.hostname or "", parts.port
    except ValueError:
        raise ValidationError.one("nas", f"{url!r} has a port that is not a number from 1 to 65535") from None
    if port == 0:
        raise ValidationError.one("nas", f"{url!r} has port 0")
    if parts.netloc.startswith("["):
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValidationError.one("nas", f"{host!r} is not an IPv6 address") from None
    elif not HOST_RE.fullmatch(host):
        raise ValidationError.one("nas", f"{host!r} is not a host name or IPv4 address")
    netloc = parts.netloc.lower() if not parts.netloc.startswith("[") else parts.netloc
    return f"{parts.scheme}://{netloc}{API_PATH}", host


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(loader=PackageLoader("tengig.desk", "templates"), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)
    env.filters["psq"] = lambda value: ps_quote(str(value))
    return env


def render_kit(*, os_name: str, nas: str, token: str, share: str) -> str:
    """The join script for one run, every value checked first (ValidationError names the field)."""
    check_os(os_name)
    uri, host = nas_uri(nas)
    context = {
        "uri": uri, "host": host, "token": check_token(token), "share": check_share(share),
        "version": __version__, "remote_re": REMOTE_RE.pattern, "share_re": SHARE_RE.pattern,
        "iperf3_limits": IPERF3_LIMITS, "min_file_bytes": MIN_FILE_BYTES, "max_file_bytes": MAX_FILE_BYTES,
        "frame_budget": FRAME_BUDGET, "message_limit": MESSAGE_LIMIT, "first_slice": FIRST_SLICE,
    }
    return _environment().get_template("join-windows.ps1.j2").render(context)


def how_to_run(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return (f"Copy {name} and iperf3.exe (3.x, from iperf.fr or your package manager) into one folder on the "
            "Windows desktop, then run there:\n"
            f"    powershell -ExecutionPolicy Bypass -File {name}\n"
            "It copies to the share as the Windows user who runs it; if that user cannot write to the share, "
            "run `net use \\\\NAS\\SHARE /user:NAME` first. The token works for this run only.")
