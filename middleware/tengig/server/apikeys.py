"""API keys for tengig's own host, in their own small SQLite file, never in plain text.

A key is ``<id>-<secret>``, TrueNAS's shape exactly: the id finds the row; the secret, 64 letters and
digits (the only alphabet the official client accepts), is checked against a salted PBKDF2-HMAC-SHA256
hash. Every pattern here is matched whole (``fullmatch``): a key with a newline after it is not the key.
The plain key is printed once by ``tengig apikey create`` and exists nowhere else.

Verified keys are remembered in memory only (as an HMAC under a per-process random pepper, next to
the row's hash), so a script that reconnects often, or 200 clients logging in at once, do not pay
PBKDF2 each time. The row is still read on every login: a deleted key stops working at once, and
``delete`` returns once every server using the file has ended the sessions logged in with it
(server/revocation.py).

File: $TENGIG_APIKEYS_DB, else ``apikeys.sqlite3`` next to the results database ($TENGIG_DB).
"""
from __future__ import annotations

import errno
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import string
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, Field

from ..errors import TengigError, ValidationError
from ..results.store import default_db_path
from .revocation import APIKEYS_ENV_VAR, tell_servers

PBKDF2_ITERATIONS = 200_000  # a random 288-bit secret needs no stretching; this guards a leaked file anyway
KEY_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
USERNAME_RE = re.compile(r"[a-z_][a-z0-9_.-]{0,31}")
SECRET_ALPHABET = string.ascii_letters + string.digits
SECRET_LENGTH = 64  # 381 random bits, as TrueNAS's own keys
# Verification also takes the url-safe secrets that tengig made before it used TrueNAS's alphabet.
KEY_RE = re.compile(r"([0-9]{1,12})-([A-Za-z0-9_-]{16,128})")

SCHEMA = """
CREATE TABLE IF NOT EXISTS api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    username TEXT NOT NULL,
    salt BLOB NOT NULL,
    hash BLOB NOT NULL,
    iterations INTEGER NOT NULL,
    created REAL NOT NULL
)
"""


def default_apikeys_path() -> Path:
    return Path(os.environ.get(APIKEYS_ENV_VAR) or default_db_path().with_name("apikeys.sqlite3"))


class ApiKey(BaseModel):
    id: int = Field(description="Key id (the part before '-').")
    name: str = Field(description="Name given at creation.")
    username: str = Field(description="The user a login with this key becomes.")
    created: float = Field(description="Epoch seconds.")


class DeletedKey(NamedTuple):
    id: int
    sessions_ended: int  # open sessions of the key that the servers using its file ended


@dataclass(frozen=True)
class KeyCheck:
    """What ``ApiKeyStore.check_fast`` found. ``key_id``: the row the key names (None: no row, or not a
    key). Then either ``record``, the answer when no hashing was needed (None: refused), or ``slow``,
    the PBKDF2 check still to run (the record or None), named by ``token`` (the same key checked twice
    at once is hashed once)."""

    key_id: int | None
    record: ApiKey | None = None
    slow: Callable[[], ApiKey | None] | None = None
    token: Hashable = None


class ApiKeyStore:
    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else default_apikeys_path()
        self._pepper = secrets.token_bytes(32)
        self._verified: dict[int, tuple[bytes, bytes]] = {}  # id -> (row hash, HMAC of the accepted secret)
        self._guard = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Created private before SQLite opens it: hashes only, but nobody else needs to read them.
            _check_own_file(self.path, os.open(self.path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600))
            with self._transaction() as conn:
                conn.execute(SCHEMA)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symbolic link
                raise _refused(self.path, "is a symbolic link") from exc
            raise TengigError(
                f"cannot open the API key database {self.path} ({exc}); set {APIKEYS_ENV_VAR} to a writable file",
                errno=getattr(exc, "errno", None) or errno.EACCES,
            ) from exc

    def create(self, name: str, username: str = "root") -> tuple[ApiKey, str]:
        """A new key: its record, and the plain key (shown once, stored nowhere)."""
        problems = []
        if not KEY_NAME_RE.fullmatch(name or ""):
            problems.append(("name", f"{name!r} is not a key name (letters, digits, '.', '_', '-'; up to 64)"))
        if not USERNAME_RE.fullmatch(username or ""):
            problems.append(("username", f"{username!r} is not a user name"))
        if problems:
            raise ValidationError(problems)
        secret = "".join(secrets.choice(SECRET_ALPHABET) for _ in range(SECRET_LENGTH))
        salt = secrets.token_bytes(16)
        digest = _pbkdf2(secret, salt, PBKDF2_ITERATIONS)
        created = time.time()
        try:
            with self._transaction() as conn:
                cur = conn.execute(
                    "INSERT INTO api_keys (name, username, salt, hash, iterations, created) VALUES (?, ?, ?, ?, ?, ?)",
                    (name, username, salt, digest, PBKDF2_ITERATIONS, created),
                )
                key_id = int(cur.lastrowid)
        except sqlite3.IntegrityError as exc:
            clash = ValidationError.one("name", f"an API key named {name!r} already exists; delete it or pick another")
            clash.errno = errno.EEXIST
            raise clash from exc
        return ApiKey(id=key_id, name=name, username=username, created=created), f"{key_id}-{secret}"

    def list(self) -> list[ApiKey]:
        with self._transaction() as conn:
            rows = conn.execute("SELECT id, name, username, created FROM api_keys ORDER BY id").fetchall()
        return [ApiKey(id=r[0], name=r[1], username=r[2], created=r[3]) for r in rows]

    def delete(self, name: str) -> DeletedKey:
        """Delete the key ``name``; returns once every server using this file has ended the sessions
        logged in with it (server/revocation.py); TengigError if one did not say so."""
        with self._transaction() as conn:
            row = conn.execute("SELECT id FROM api_keys WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise TengigError(f"no API key named {name!r}; `tengig apikey list` shows them", errno=errno.ENOENT)
            conn.execute("DELETE FROM api_keys WHERE id = ?", (row[0],))
        with self._guard:
            self._verified.pop(int(row[0]), None)
        return DeletedKey(int(row[0]), tell_servers(self.path, f"deleted API key {name!r}"))

    def ids(self) -> set[int]:
        """The ids of every current key."""
        with self._transaction() as conn:
            return {int(r[0]) for r in conn.execute("SELECT id FROM api_keys").fetchall()}

    def verify(self, plain_key: str, username: str | None = None) -> ApiKey | None:
        """The key's record if ``plain_key`` is a current key (of ``username``, if given), else None."""
        found = self.check_fast(plain_key, username)
        return found.slow() if found.slow is not None else found.record

    def check_fast(self, plain_key: str, username: str | None = None) -> KeyCheck:
        """The cheap part of ``verify``: the row the key names, and the answer when no hashing is needed
        (a malformed key, an unknown id, another user's key, a key verified before); otherwise the
        PBKDF2 check still to run, as a function (the server runs it in its login pool)."""
        match = KEY_RE.fullmatch(plain_key) if isinstance(plain_key, str) else None
        if match is None:
            return KeyCheck(None)
        key_id, secret = int(match.group(1)), match.group(2)
        with self._transaction() as conn:
            row = conn.execute(
                "SELECT id, name, username, created, salt, hash, iterations FROM api_keys WHERE id = ?", (key_id,)
            ).fetchone()
        if row is None:
            return KeyCheck(None)
        if username is not None and username != row[2]:
            return KeyCheck(key_id)
        record = ApiKey(id=row[0], name=row[1], username=row[2], created=row[3])
        salt, stored, iterations = row[4], row[5], row[6]
        fast = hmac.new(self._pepper, secret.encode(), hashlib.sha256).digest()
        with self._guard:
            remembered = self._verified.get(key_id)
        if remembered is not None and hmac.compare_digest(remembered[0], stored):
            return KeyCheck(key_id, record if hmac.compare_digest(remembered[1], fast) else None)

        def slow() -> ApiKey | None:
            if not hmac.compare_digest(_pbkdf2(secret, salt, iterations), stored):
                return None
            with self._guard:
                self._verified[key_id] = (stored, fast)
            return record
        return KeyCheck(key_id, slow=slow, token=(key_id, fast))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One connection, one transaction, closed after; sqlite3 errors become TengigError here only."""
        try:
            conn = sqlite3.connect(self.path, timeout=30)
        except sqlite3.Error as exc:
            raise TengigError(f"cannot open the API key database {self.path}: {exc}") from exc
        try:
            with conn:
                yield conn
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise TengigError(f"API key database {self.path}: {exc}") from exc
        finally:
            conn.close()


def _check_own_file(path: Path, fd: int) -> None:
    """The key file opened as ``fd`` is this user's and nobody else may write it (else whoever made it first,
    beside it in a folder anyone may write, could add a key of their own); closes ``fd``."""
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if st.st_uid != os.geteuid():
        raise _refused(path, f"belongs to uid {st.st_uid}, not to this user (uid {os.geteuid()})")
    if st.st_mode & 0o022:
        raise _refused(path, f"is writable by its group or others (mode {st.st_mode & 0o7777:04o})")


def _refused(path: Path, why: str) -> TengigError:
    return TengigError(f"the API key database {path} {why}: whoever can write it can add a key of their own; "
                       f"remove it if it is not this user's, or set {APIKEYS_ENV_VAR} to a key file in a directory "
                       "only this user can write", errno=errno.EPERM)


def _pbkdf2(secret: str, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", secret.encode(), salt, iterations)
