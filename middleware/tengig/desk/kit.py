"""``tengig client kit --os windows``: a PowerShell script that makes a Windows desktop join one run.

The script (templates/join-windows.ps1.j2) has the NAS's URL, the run's token and the share baked in
(and for wss://, the fingerprint of the certificate the NAS's listener presents: desk/certificate.py)
and does what ``tengig client join`` does (desk/join.py), with Windows' own tools: iperf3.exe, robocopy
/J (unbuffered) to the share, the share's files read back unbuffered into memory, and the small-file
test with .NET's file APIs on the share's UNC path (each file's calls timed as tengig's own timer times
them). It speaks join protocol v2, which works on tengig's own API host and inside TrueNAS's
middlewared alike: no login (the token is ``tengig.bench.session.join``'s first param), and no message it
sends is over MESSAGE_LIMIT bytes (a long submission goes in parts, each with ``more``, the last with
``more`` false). Every value is validated here and written into the script as a
single-quoted PowerShell string; the instruction checks (desk/instructions.py) are written into it from
the same Python constants, so they exist once. The script is ASCII, whatever the input: Windows
PowerShell 5.1 reads a .ps1 without a BOM in the ANSI code page (the panel saves it, the CLI writes it,
both without a BOM)."""
from __future__ import annotations

from functools import lru_cache

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
    context = {
        "uri": uri, "host": host, "token": check_token(token), "share": check_share(share),
        "fingerprint": check_fingerprint(uri, fingerprint), "unc_host": unc_host(host),
        "version": __version__, "remote_re": REMOTE_RE.pattern, "share_re": SHARE_RE.pattern,
        "iperf3_limits": IPERF3_LIMITS, "min_file_bytes": MIN_FILE_BYTES, "max_file_bytes": MAX_FILE_BYTES,
        "smallest_copy_bytes": SMALLEST_COPY_BYTES,
        "frame_budget": FRAME_BUDGET, "message_limit": MESSAGE_LIMIT, "first_slice": FIRST_SLICE,
        "free_margin_bytes": FREE_MARGIN_BYTES, "free_margin_share": FREE_MARGIN_SHARE,
        "interface_re": DESKTOP_IFNAME_RE.pattern, "control_class": CONTROL_CLASS,
        "own_timer": OWN_TIMER, "small_ops": SMALL_OPS, "small_batch_ops": SMALL_BATCH_OPS,
        "small_size_limits": SMALL_SIZE_LIMITS, "small_count_limits": SMALL_COUNT_LIMITS,
        "small_total_bytes": SMALL_TOTAL_BYTES, "client_dir_re": CLIENT_DIR_RE.pattern,
        "peer_ports": PEER_PORTS, "peer_limits": PEER_LIMITS, "peer_ops": PEER_OPS,
        "narrowest_prefix": NARROWEST_PREFIX, "connect_tries": CONNECT_TRIES,
        "connect_pause_ms": int(CONNECT_PAUSE_S * 1000), "refused": REFUSED,
    }
    script = _environment().get_template("join-windows.ps1.j2").render(context)
    # Windows PowerShell 5.1 reads a .ps1 without a BOM in the ANSI code page, where the bytes of a UTF-8
    # character can read as a quote that ends a string: every value is checked to be ASCII, and so is this.
    if not script.isascii():
        raise TengigError("the Windows kit came out with characters that are not ASCII; not given out (a bug of "
                          "tengig: please report it)")
    return script


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
