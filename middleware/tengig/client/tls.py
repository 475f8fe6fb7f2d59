"""How a client checks the NAS's TLS certificate on wss:// (ws:// has none).

TrueNAS serves its web interface, and so its API, with a self-signed certificate until someone installs
another: a desktop that joins over wss:// must be told to trust it (``ca_file``: the certificate, as
TrueNAS exports it, or the CA that signed it) or, knowingly, not to check it (``insecure``: anyone on
the path could then read what the desktop sends, the run's token included, which lets them join that
one run and nothing else)."""
from __future__ import annotations

import ssl
from pathlib import Path

from ..errors import ValidationError

UNTRUSTED_HINT = ("TrueNAS makes a self-signed certificate: trust it with --ca-file (its certificate, downloaded "
                  "from System > Certificates), join over ws:// (the NAS's plain HTTP port), or pass --insecure")


def tls_setting(ca_file: Path | None = None, insecure: bool = False) -> ssl.SSLContext | bool:
    """What aiohttp's ``ssl`` takes: True (the system's trust store), an SSLContext trusting ``ca_file``,
    or False (no check)."""
    if ca_file is not None and insecure:
        raise ValidationError.one("insecure", "--ca-file and --insecure contradict each other: use one")
    if insecure:
        return False
    if ca_file is None:
        return True
    try:
        return ssl.create_default_context(cafile=str(ca_file))
    except (OSError, ssl.SSLError) as exc:
        raise ValidationError.one("ca_file", f"{ca_file} is not a PEM certificate this machine can read ({exc}); "
                                  "export the NAS's certificate (PEM) and pass that file") from exc
