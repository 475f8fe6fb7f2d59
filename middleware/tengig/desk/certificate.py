"""The certificate a NAS's wss:// listener presents, as the Windows kit trusts it: by its SHA-256 fingerprint.

TrueNAS serves wss with a self-signed certificate until someone installs another, and a Windows desktop
has nothing to check it with. The kit is made on the NAS (the panel's tengig.bench.kit, `tengig client
kit`), so the NAS reads the certificate from its own listener there, at the address the desktop will
use, and bakes its fingerprint into the kit: the kit then trusts that certificate and no other (or,
with -CaFile, what that CA signed for the NAS's name)."""
from __future__ import annotations

import hashlib
import re
import socket
import ssl
from urllib.parse import urlsplit

from ..errors import ValidationError

FINGERPRINT_RE = re.compile(r"^[0-9A-F]{64}$")
READ_TIMEOUT_S = 10.0


def fingerprint_of(der: bytes) -> str:
    """SHA-256 of a certificate (DER), as 64 upper-case hex digits (Windows' way of writing a hash)."""
    return hashlib.sha256(der).hexdigest().upper()


def listener_fingerprint(uri: str, *, field: str = "nas", timeout: float = READ_TIMEOUT_S) -> str:
    """The fingerprint of the certificate the listener at ``uri`` (wss://HOST[:PORT]/...) presents, read
    over TLS 1.2 or later without judging it (it is what is being pinned). ValidationError naming
    ``field`` when it cannot be read."""
    parts = urlsplit(uri)
    host, port = parts.hostname or "", parts.port or 443
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        with socket.create_connection((host, port), timeout=timeout) as raw, \
                context.wrap_socket(raw, server_hostname=host) as tls:
            der = tls.getpeercert(binary_form=True)
    except (OSError, ssl.SSLError) as exc:
        raise ValidationError.one(field, (
            f"cannot read the certificate of {uri} from here ({exc.strerror or exc}); the kit trusts the NAS's "
            "certificate by its fingerprint, read when the kit is made: give the address desktops reach the "
            "NAS at, as this NAS reaches it too, or ws:// (its plain HTTP port)")) from exc
    if not der:
        raise ValidationError.one(field, f"{uri} presented no certificate")
    return fingerprint_of(der)
