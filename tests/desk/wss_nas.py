"""A tengig serve behind TLS, as a NAS with its own certificate: the kit's tests join it over wss://."""
from __future__ import annotations

import contextlib
import hashlib
import ssl
from collections.abc import Iterator
from pathlib import Path

from tests.client.test_tls import _self_signed, tls_proxy
from tests.server.harness import running_server


@contextlib.contextmanager
def wss_nas(tmp: Path) -> Iterator[tuple[str, str]]:
    """(its wss:// URL, its certificate's SHA-256 fingerprint in upper-case hex) while the block runs."""
    cert, key = _self_signed(tmp)
    with running_server(tmp) as srv:
        port = int(srv.url.split(":")[2].split("/")[0])
        with tls_proxy(cert, key, port) as tls_port:
            der = ssl.PEM_cert_to_DER_cert(cert.read_text())
            yield f"wss://127.0.0.1:{tls_port}", hashlib.sha256(der).hexdigest().upper()
