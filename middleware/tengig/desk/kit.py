"""``tengig client kit --os windows``: a PowerShell script that makes a Windows desktop join one run.

The script has the NAS's URL, the run's token and the share baked in (and for wss://, the fingerprint of
the certificate the NAS's listener presents: desk/certificate.py) and does what ``tengig client join`` does
(desk/join.py), with Windows' own tools: iperf3.exe, robocopy /J (unbuffered) to the share, the share's
files read back unbuffered into memory, and the small-file test with .NET's file APIs on the share's UNC
path (each file's calls timed as tengig's own timer times them). It speaks join protocol v2, which works on
tengig's own API host and inside TrueNAS's middlewared alike: no login (the token is
``tengig.bench.session.join``'s first param), and no message it sends is over MESSAGE_LIMIT bytes (a long
submission goes in parts, each with ``more``, the last with ``more`` false).

Its source is a PowerShell module in ``winkit/``: its functions in ``.ps1`` files by concern, its C# (what
Add-Type compiles) in ``.cs`` files. Only a small configuration is rendered (templates/join-windows.ps1.j2:
the header, the parameters, ``$KitConfig``); this module puts them together into the one script the user
downloads. Every value is validated here and written into ``$KitConfig`` as a PowerShell literal; the
instruction checks (desk/instructions.py) are written into it from the same Python constants, so they
exist once. The script is ASCII, whatever the input: Windows PowerShell 5.1 reads a .ps1 without a BOM in
the ANSI code page (the panel saves it, the CLI writes it, both without a BOM)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from .. import __version__
from ..errors import TengigError, ValidationError
from ..names import DESKTOP_IFNAME_RE, SHARE_RE
from ..text import CONTROL_CLASS
from ..join_protocol.limits import (IPERF3_LIMITS, MAX_FILE_BYTES, MIN_FILE_BYTES, PEER_LIMITS, PEER_OPS, PEER_PORTS,
                                    SMALL_COUNT_LIMITS, SMALL_SIZE_LIMITS, SMALL_TOTAL_BYTES)
from ..join_protocol.limits import SMALLFILES_OPS as SMALL_OPS
from ..join_protocol.lines import OWN_TIMER, SMALL_BATCH_OPS
from ..join_protocol.naming import CLIENT_DIR_RE, REMOTE_RE, TOKEN_RE
from .instructions import FREE_MARGIN_BYTES, FREE_MARGIN_SHARE, SMALLEST_COPY_BYTES
from .peer_rule import NARROWEST_PREFIX
from .peer_server import CONNECT_PAUSE_S, CONNECT_TRIES, REFUSED
from .certificate import FINGERPRINT_RE, listener_fingerprint
from .nas_url import nas_uri, no_control
from ..join_protocol.parts import FIRST_SLICE, FRAME_BUDGET, MESSAGE_LIMIT  # the kit splits as tengig client join does

KIT_OSES = ("windows",)
DEFAULT_OUT = "tengig-join.ps1"
# PowerShell ends a single-quoted string at any of these, not only at the ASCII quote.
PS_QUOTES = ("'", "\u2018", "\u2019", "\u201a", "\u201b")
# The kit's source (package data): its PowerShell by concern, in the order the script holds them, and the
# C# Add-Type compiles. Context first (the one object every function is given); the seam for what only
# Windows has (Platform) before what uses it; Join last (the run, and the entry the script ends with).
KIT_SOURCE = Path(__file__).parent / "winkit"
PS_FILES = ("Context.ps1", "Output.ps1", "Platform.ps1", "Protocol.ps1", "Checks.ps1", "Tools.ps1", "Share.ps1",
            "SmallFiles.ps1", "Peer.ps1", "Join.ps1")
CS_FILES = ("Platform.cs", "Trust.cs", "Share.cs", "Guard.cs", "Unbuffered.cs", "SmallSet.cs", "PeerRule.cs")


def ps_quote(value: str) -> str:
    """A PowerShell single-quoted literal of ``value`` (every kind of single quote doubled)."""
    for quote in PS_QUOTES:
        value = value.replace(quote, quote * 2)
    return f"'{value}'"


def check_os(value: str) -> str:
    if value not in KIT_OSES:
        raise ValidationError.one("os", f"there is no kit for {value!r} (only windows); on Linux or macOS, "
                                  "install tengig and run `tengig client join URL --token T`")
    return value


def check_token(value: str) -> str:
    if not TOKEN_RE.fullmatch(no_control("token", value)):
        raise ValidationError.one("token", "not a join token (tgb- and 48 hex digits, as the NAS's run shows it)")
    return value


def check_share(value: str) -> str:
    if not SHARE_RE.fullmatch(no_control("share", value)):
        raise ValidationError.one("share", f"{value!r} is not an SMB share name (allowed: {SHARE_RE.pattern})")
    return value


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(loader=PackageLoader("tengig.desk", "templates"), undefined=StrictUndefined,
                      keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True, autoescape=False)
    env.filters["psq"] = lambda value: ps_quote(str(value))
    return env


def check_fingerprint(uri: str, fingerprint: str) -> str:
    """wss:// needs the NAS certificate's fingerprint (64 hex digits); ws:// has none."""
    if not uri.startswith("wss://"):
        if fingerprint:
            raise ValidationError.one("fingerprint", "ws:// has no certificate to trust: no fingerprint")
        return ""
    if not FINGERPRINT_RE.fullmatch(fingerprint.upper()):
        raise ValidationError.one("fingerprint", f"{fingerprint!r} is not the SHA-256 of the NAS's certificate "
                                  "(64 hex digits)")
    return fingerprint.upper()


def render_kit(*, os_name: str, nas: str, token: str, share: str, fingerprint: str = "") -> str:
    """The join script for one run, every value checked first (ValidationError names the field).
    ``fingerprint``: for wss://, the SHA-256 of the certificate the kit is to trust (make_kit reads it)."""
    check_os(os_name)
    uri, host = nas_uri(nas)
    fingerprint = check_fingerprint(uri, fingerprint)
    context = {"version": __version__, "host": host, "share": check_share(share), "unc_host": unc_host(host),
               "message_limit": MESSAGE_LIMIT,
               "config": ps_literal(kit_config(uri, host, check_token(token), share, fingerprint)),
               "csharp": kit_csharp(), "functions": kit_functions()}
    script = _environment().get_template("join-windows.ps1.j2").render(context)
    # Windows PowerShell 5.1 reads a .ps1 without a BOM in the ANSI code page, where the bytes of a UTF-8
    # character can read as a quote that ends a string: every value is checked to be ASCII, and so is this.
    if not script.isascii():
        raise TengigError("the Windows kit came out with characters that are not ASCII; not given out (a bug of "
                          "tengig: please report it)")
    return script


def kit_config(uri: str, host: str, token: str, share: str, fingerprint: str) -> dict[str, Any]:
    """$KitConfig: what the kit is made with (New-KitContext, winkit/Context.ps1, makes the run's object of it).
    The patterns are Python's own (the kit matches each whole)."""
    return {
        "NasUri": uri, "NasHost": host, "Token": token, "Share": share, "KitVersion": __version__,
        # wss://: the SHA-256 of the certificate the NAS's listener presented when this kit was made ('' for ws://)
        "CertSha256": fingerprint,
        # the NAS's host as a UNC path names it: the copies go to \\ShareHost\Share when it is the NAS's address
        "ShareHost": unc_host(host),
        "RemotePattern": REMOTE_RE.pattern, "SharePattern": SHARE_RE.pattern, "Iperf3Limits": dict(IPERF3_LIMITS),
        "MinFileBytes": MIN_FILE_BYTES, "MaxFileBytes": MAX_FILE_BYTES, "SmallestCopyBytes": SMALLEST_COPY_BYTES,
        "FreeMarginBytes": FREE_MARGIN_BYTES, "FreeMarginShare": FREE_MARGIN_SHARE,
        "OwnTimer": OWN_TIMER, "SmallFilesOps": list(SMALL_OPS), "SmallBatchOps": list(SMALL_BATCH_OPS),
        "SmallSizeLimits": list(SMALL_SIZE_LIMITS), "SmallCountLimits": list(SMALL_COUNT_LIMITS),
        "SmallTotalBytes": SMALL_TOTAL_BYTES, "ClientDirPattern": CLIENT_DIR_RE.pattern,
        "PeerOps": list(PEER_OPS), "PeerLimits": {"port": PEER_PORTS, **PEER_LIMITS},
        "NarrowestPrefix": NARROWEST_PREFIX, "PeerConnectTries": CONNECT_TRIES,
        "PeerConnectPauseMs": int(CONNECT_PAUSE_S * 1000), "RefusedPattern": REFUSED,
        "InterfacePattern": DESKTOP_IFNAME_RE.pattern, "ControlPattern": CONTROL_CLASS,
        "FrameBudget": FRAME_BUDGET, "MessageLimit": MESSAGE_LIMIT, "FirstSlice": FIRST_SLICE,
    }


def ps_literal(value: Any, indent: str = "") -> str:
    """A PowerShell literal of ``value``: strings single-quoted (ps_quote), whole numbers as [long], lists as
    @(...), dicts as [ordered]@{...} one key a line."""
    if isinstance(value, bool):
        return "$true" if value else "$false"
    if isinstance(value, int):
        return f"[long]{value}"
    if isinstance(value, str):
        return ps_quote(value)
    if isinstance(value, (list, tuple)):
        return "@(" + ", ".join(ps_literal(v, indent) for v in value) + ")"
    if isinstance(value, dict):
        inner = indent + "    "
        lines = [f"{inner}{ps_quote(str(k))} = {ps_literal(v, inner)}" for k, v in value.items()]
        return "[ordered]@{\n" + "\n".join(lines) + f"\n{indent}}}"
    raise TypeError(f"no PowerShell literal of {type(value).__name__}")


@lru_cache(maxsize=1)
def kit_functions() -> str:
    """The kit's PowerShell functions, file after file (PS_FILES)."""
    return "".join((KIT_SOURCE / name).read_text(encoding="ascii").rstrip("\n") + "\n\n" for name in PS_FILES)


@lru_cache(maxsize=1)
def kit_csharp() -> str:
    """The kit's C# as one source for Add-Type: every file's using directives once, first, then each file's
    namespace block (a using after a namespace is not C#)."""
    usings: list[str] = []
    bodies: list[str] = []
    for name in CS_FILES:
        lines = (KIT_SOURCE / name).read_text(encoding="ascii").rstrip("\n").split("\n")
        at = 0
        while at < len(lines) and (lines[at].startswith("using ") or not lines[at].strip()):
            if lines[at].startswith("using ") and lines[at] not in usings:
                usings.append(lines[at])
            at += 1
        bodies.append("\n".join(lines[at:]))
    return "\n".join(sorted(usings)) + "\n\n" + "\n\n".join(bodies) + "\n"


def make_kit(*, os_name: str, nas: str, token: str, share: str) -> str:
    """render_kit, with the fingerprint of wss://'s certificate read from the NAS's listener at ``nas``
    (the panel's tengig.bench.kit and `tengig client kit` run on the NAS: it reads its own)."""
    check_os(os_name)
    uri, _ = nas_uri(nas)
    check_token(token)
    check_share(share)
    fingerprint = listener_fingerprint(uri) if uri.startswith("wss://") else ""
    return render_kit(os_name=os_name, nas=nas, token=token, share=share, fingerprint=fingerprint)


def unc_host(host: str) -> str:
    """The host of a UNC path: a name or IPv4 address as it is; an IPv6 address in Windows' literal form
    (fd00::1 -> fd00--1.ipv6-literal.net, a zone %12 as s12)."""
    if ":" not in host:
        return host
    return host.replace(":", "-").replace("%", "s") + ".ipv6-literal.net"


def how_to_run(path: str, nas: str, share: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    unc = f"\\\\{unc_host(nas_uri(nas)[1])}\\{share}"
    return (f"Copy {name} and iperf3.exe (3.x, from iperf.fr or your package manager, with the DLLs that come "
            "with it) into one folder on the Windows desktop, then run there:\n"
            f"    powershell -ExecutionPolicy Bypass -File {name}\n"
            f"It copies to {unc} as the Windows user who runs it; if that user is not a user of the NAS, run "
            f"`net use {unc} /user:NAME` first (Windows keeps the credentials under that name), or add "
            "-Credential NAME to the command. It runs its tools against the NAS's own addresses only; if the "
            "NAS measures over another of its addresses (a mesh link), add -NasAddress IP. The token works for "
            "this run only.")
