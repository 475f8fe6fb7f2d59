"""Which TrueNAS `system: "truenas"` means when tengig runs as its own host (`tengig serve`, the CLI):
the one named by TENGIG_TRUENAS_URL (ws://nas or wss://nas; /api/current or the legacy /websocket is
found by itself) with the API key in the file TENGIG_TRUENAS_API_KEY_FILE (mode 0600; a key never goes
in an environment variable or an argument, where `ps` shows it), logged in as its user TENGIG_TRUENAS_USER
(default root; TrueNAS 26's SCRAM login names the key's owner). Inside middlewared the plugin gives
the backend a MiddlewareCaller instead."""
from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from ...client import Client, connect
from ...client.errors import ClientError
from ...errors import TengigError
from .backend import TrueNASBackend

URL_ENV = "TENGIG_TRUENAS_URL"
KEY_FILE_ENV = "TENGIG_TRUENAS_API_KEY_FILE"
# The key's user (TrueNAS 26 logs a key in with SCRAM, which names the key's owner); default root
USER_ENV = "TENGIG_TRUENAS_USER"
# The app's key file as the NAS names it (the compose secret's source), for messages: the container sees
# it at /run/secrets/..., the person edits it on the NAS.
KEY_HOST_FILE_ENV = "TENGIG_TRUENAS_API_KEY_HOST_FILE"


def key_file_named() -> str:
    """The key file as the person who can fix it knows it."""
    key_file = os.environ.get(KEY_FILE_ENV) or "the API key file"
    host = os.environ.get(KEY_HOST_FILE_ENV)
    return f"{key_file} (on the NAS: {host})" if host and host != key_file else key_file


@contextlib.contextmanager
def configured_truenas() -> Iterator[TrueNASBackend]:
    with configured_client() as client:
        yield TrueNASBackend(client)


@contextlib.contextmanager
def configured_client() -> Iterator[Client]:
    """A logged-in client of the configured TrueNAS; a refused key is said with the file it came from."""
    url, key_file = os.environ.get(URL_ENV), os.environ.get(KEY_FILE_ENV)
    if not url or not key_file:
        raise TengigError(f"no TrueNAS configured: set {URL_ENV} (ws://nas) and {KEY_FILE_ENV} (a file holding "
                          "an API key made in the TrueNAS UI)", errno=errno.ENOENT)
    try:
        key = Path(key_file).read_text().strip()
    except OSError as exc:
        raise TengigError(f"cannot read the TrueNAS API key from {key_file}: {exc.strerror}", errno=errno.EACCES) from exc
    try:
        client = connect(url, key, username=os.environ.get(USER_ENV) or "root")
    except ClientError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            named = key_file_named()
            raise TengigError(f"the TrueNAS at {url} refused the API key in {named}: make a new key in the "
                              f"TrueNAS UI (user menu > My API Keys > Add) and put it in that file",
                              errno=errno.EACCES) from exc
        raise TengigError(f"cannot reach the TrueNAS at {url}: {exc}", errno=exc.errno or errno.ECONNREFUSED) from exc
    with client:
        yield client
