"""The client's side of SCRAM-SHA-512 (RFC 5802), as TrueNAS 26 logs an API key in through ``auth.login_ex``
(mechanism SCRAM): the key never crosses the wire, only a proof that the client holds it, and the server proves
in turn that it holds the key's stored material.

TrueNAS's form: the key ``ID-SECRET``; the client-first message names ``user:ID`` (so the server picks that key
among the user's), no channel binding (``n,,``); the password SCRAM salts and hashes is SECRET, as TrueNAS's
api_key plugin derives the stored material from it (PBKDF2-HMAC-SHA512 with the key's salt and iterations).

    exchange = ScramExchange(username, api_key)
    server_first = login_ex(SCRAM, CLIENT_FIRST_MESSAGE, exchange.client_first())
    server_final = login_ex(SCRAM, CLIENT_FINAL_MESSAGE, exchange.client_final(server_first))
    exchange.check_server_final(server_final)   # ClientError unless the server proved it holds the key
"""
from __future__ import annotations

import base64
import errno
import hashlib
import hmac
import re
import secrets

from .errors import ClientError

KEY_RE = re.compile(r"^([1-9][0-9]*)-([A-Za-z0-9]{1,128})$")
NONCE_BYTES = 32  # TrueNAS's size: it joins its own 32 bytes to ours and sends the 64 in base64
GS2_HEADER = "n,,"  # no channel binding (RFC 5802 section 7)
MIN_ITERATIONS, MAX_ITERATIONS = 50_000, 5_000_000  # TrueNAS's own bounds (it stores 500,000)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _refused(why: str) -> ClientError:
    return ClientError(f"SCRAM login: {why}", errno=errno.EACCES)


def split_key(api_key: str) -> tuple[int, str]:
    """'12-SECRET' -> (12, 'SECRET'); ClientError naming the form otherwise (the key itself is not repeated)."""
    found = KEY_RE.fullmatch(api_key.strip())
    if not found:
        raise ClientError("the API key is not of TrueNAS's form ID-KEY (digits, '-', letters and digits)",
                          errno=errno.EINVAL)
    return int(found.group(1)), found.group(2)


def _attributes(message: str) -> dict[str, str]:
    """'r=abc,s=QSX=,i=4096' -> {'r': 'abc', 's': 'QSX=', 'i': '4096'} (a value may hold '=')."""
    out = {}
    for part in message.split(","):
        name, eq, value = part.partition("=")
        if len(name) != 1 or not eq:
            raise _refused(f"the server sent a malformed message ({message[:80]!r})")
        out.setdefault(name, value)
    return out


class ScramExchange:
    """One SCRAM-SHA-512 login of an API key as ``username`` (its owner)."""

    def __init__(self, username: str, api_key: str, nonce: str | None = None):
        if not username or "," in username or "=" in username:
            raise ClientError("SCRAM login needs the key's user name, without ',' or '='", errno=errno.EINVAL)
        self.key_id, self._secret = split_key(api_key)
        self._nonce_raw = base64.b64decode(nonce) if nonce else secrets.token_bytes(NONCE_BYTES)
        self.nonce = _b64(self._nonce_raw)
        self.first_bare = f"n={username}:{self.key_id},r={self.nonce}"
        self._auth_message: bytes | None = None
        self._server_key: bytes | None = None

    def client_first(self) -> str:
        return GS2_HEADER + self.first_bare

    def client_final(self, server_first: str) -> str:
        """The client-final message answering the server-first one: the combined nonce and the proof."""
        attrs = _attributes(server_first)
        if "e" in attrs:
            raise _refused(f"the server refused: {attrs['e']}")
        nonce, salt_b64, rounds = attrs.get("r", ""), attrs.get("s"), attrs.get("i", "")
        try:
            combined = base64.b64decode(nonce, validate=True)
        except ValueError:
            combined = b""
        if not combined.startswith(self._nonce_raw) or len(combined) <= len(self._nonce_raw):
            raise _refused("the server's nonce does not extend ours (a replay, or not the server we asked)")
        if salt_b64 is None or not rounds.isdigit():
            raise _refused("the server's first message has no salt or iteration count")
        iterations = int(rounds)
        if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
            raise _refused(f"the server asks for {iterations} iterations ({MIN_ITERATIONS}-{MAX_ITERATIONS} taken)")
        try:
            salt = base64.b64decode(salt_b64, validate=True)
        except ValueError:
            raise _refused("the server's salt is not base64") from None
        salted = hashlib.pbkdf2_hmac("sha512", self._secret.encode(), salt, iterations)
        client_key = hmac.digest(salted, b"Client Key", "sha512")
        stored_key = hashlib.sha512(client_key).digest()
        without_proof = f"c={_b64(GS2_HEADER.encode())},r={nonce}"
        self._auth_message = f"{self.first_bare},{server_first},{without_proof}".encode()
        signature = hmac.digest(stored_key, self._auth_message, "sha512")
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        self._server_key = hmac.digest(salted, b"Server Key", "sha512")
        return f"{without_proof},p={_b64(proof)}"

    def check_server_final(self, server_final: str) -> None:
        """ClientError unless the server's signature proves it holds the key's stored material."""
        if self._auth_message is None or self._server_key is None:
            raise _refused("no client-final message was sent")
        attrs = _attributes(server_final)
        if "e" in attrs:
            raise _refused(f"the server refused: {attrs['e']}")
        expected = hmac.digest(self._server_key, self._auth_message, "sha512")
        try:
            given = base64.b64decode(attrs.get("v", ""), validate=True)
        except ValueError:
            given = b""
        if not hmac.compare_digest(given, expected):
            raise _refused("the server's signature does not match: it does not hold this key (not the TrueNAS "
                           "it claims to be?)")
