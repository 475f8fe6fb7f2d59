"""Deleting an API key ends the sessions logged in with it before the delete returns, whichever process
deletes it (`tengig apikey delete`, or a server's own store). Nothing polls.

Each running server listens on a unix socket of its own in a directory beside its key file
(``<file>.servers/``, private to its owner as the file is). ``ApiKeyStore.delete`` removes the row,
then connects to every socket there (``tell_servers``): that server reads the current key ids, ends
every session whose key is gone, and answers ``ended N``; the delete returns once each has answered,
and fails naming a server that did not. A socket nobody listens on any more (its server was killed)
is removed. Connecting carries no authority: a server only ever ends the sessions of keys its file no
longer has.

The directory is trusted only as this user's alone: made 0700, and one found there already (made first by
another user beside a key file in a folder anyone may write, such as /tmp) is refused if it is not owned by
this user, is open to its group or others, or is a symbolic link; so is a socket in it. Otherwise another
user could listen there in a server's place and answer a delete for it (or only slowly), keeping a deleted
key's sessions open.

A login checked while its key was deleted (the row read before, the hash checked after) is caught by
``generation``, the count of sweeps: ServerMiddleware.verify_api_key checks a login again when a sweep
ran while it was being checked.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import os
import re
import secrets
import socket
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import TengigError

if TYPE_CHECKING:
    from .events import EventHub

logger = logging.getLogger(__name__)

# The variable naming the API key file (apikeys.py reads it); the servers' sockets sit beside that file.
APIKEYS_ENV_VAR = "TENGIG_APIKEYS_DB"

ANSWER_SECONDS = 10.0  # a server's answer to a delete; it only reads the key ids and closes connections
UNIX_PATH_MAX = 108  # bytes of an AF_UNIX address on Linux, the final NUL included
ANSWER_RE = re.compile(rb"ended ([0-9]{1,9})\n")


class KeyFile(Protocol):
    """What a listener needs of the key file (apikeys.ApiKeyStore, which imports this module: the arrow
    points one way): where it is, and the ids of the keys it holds now."""

    path: Path

    def ids(self) -> set[int]: ...


def servers_dir(keys_path: Path) -> Path:
    """Where the servers using the key file ``keys_path`` listen for deletes."""
    return keys_path.with_name(keys_path.name + ".servers")


class RevocationListener:
    """A server's end: told of a delete, it ends the sessions whose key is gone, then answers."""

    def __init__(self, keys: KeyFile, sessions: EventHub):
        self.keys, self.sessions = keys, sessions
        self.generation = 0  # sweeps so far
        self.revoked_sessions = 0
        self.path: Path | None = None
        self._server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        directory = servers_dir(self.keys.path)
        path = directory / f"{secrets.token_hex(4)}.sock"
        try:
            try:
                directory.mkdir(mode=0o700)
                os.chmod(directory, 0o700)  # whatever the umask
            except FileExistsError:
                pass
            if (problem := untrusted(directory)) is not None:
                raise TengigError(f"cannot listen for deleted API keys: {problem}", errno=errno.EPERM)
            sock = _listening(path)
        except OSError as exc:
            raise TengigError(f"cannot listen for deleted API keys in {directory} ({exc.strerror or exc}); "
                              f"set {APIKEYS_ENV_VAR} to a key file in a directory this server may write",
                              errno=exc.errno) from exc
        self._server = await asyncio.start_unix_server(self._told, sock=sock)
        self.path = path

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            try:
                self.path.parent.rmdir()  # the last server using the file leaves no directory behind
            except OSError:
                pass
            self.path = None

    async def sweep(self) -> int:
        """End every session whose API key is gone from the file; how many."""
        live = await asyncio.get_running_loop().run_in_executor(None, self.keys.ids)
        self.generation += 1
        ended = 0
        for session in self.sessions.sessions:
            key_id = session.api_key_id
            if key_id is not None and key_id not in live:
                logger.warning("API key %s was deleted: ending the session of %s", key_id, session.origin)
                session.disconnect("API key revoked")
                ended += 1
        self.revoked_sessions += ended
        return ended

    async def _told(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            ended = await self.sweep()
            writer.write(f"ended {ended}\n".encode())
            await writer.drain()
        except (TengigError, OSError) as exc:  # the deleting process hears no answer and says so
            logger.error("could not end the sessions of a deleted API key: %s", exc)
        finally:
            writer.close()


def tell_servers(keys_path: Path, done: str) -> int:
    """Have every server using ``keys_path`` end the sessions of keys that are gone; how many they ended.
    TengigError, opening with ``done`` (what was already done), if a server did not answer."""
    directory = servers_dir(keys_path)
    if not os.path.lexists(directory):
        return 0
    if (problem := untrusted(directory)) is not None:
        raise TengigError(f"{done}, but the servers using it were not told (restart them to end that key's open "
                          f"sessions): {problem}", errno=errno.EPERM)
    try:
        sockets = sorted(p for p in directory.iterdir() if p.suffix == ".sock")
    except OSError as exc:
        raise TengigError(f"{done}, but the servers using it cannot be told from here ({directory}: "
                          f"{exc.strerror}); run this as the user the server runs as", errno=exc.errno) from exc
    ended, silent, refused = 0, [], []
    for path in sockets:
        if (problem := untrusted(path, "socket")) is not None:
            refused.append(problem)  # not connected to: whoever listens there is not one of this user's servers
            continue
        try:
            ended += _ask(path)
        except OSError as exc:
            silent.append(f"{path} ({exc.strerror or exc})")
    if refused:
        raise TengigError(f"{done}, but not every server using it was told: {'; '.join(refused)}",
                          errno=errno.EPERM)
    if silent:
        raise TengigError(f"{done}, but the server listening on {', '.join(silent)} did not confirm that it ended "
                          "the open sessions of that key; restart that server to be sure", errno=errno.ETIMEDOUT)
    return ended


def untrusted(path: Path, kind: str = "directory") -> str | None:
    """Why the servers' directory (or, ``kind`` "socket", a socket in it) is not this user's alone (None: it
    is), in words that name it and say what to do."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None  # a socket whose server stopped meanwhile; a directory is made before it is checked
    if stat.S_ISLNK(st.st_mode):
        why = "is a symbolic link"
    elif not (stat.S_ISDIR(st.st_mode) if kind == "directory" else stat.S_ISSOCK(st.st_mode)):
        why = f"is not a {kind}"
    elif st.st_uid != os.geteuid():
        why = f"belongs to uid {st.st_uid}, not to this user (uid {os.geteuid()})"
    elif st.st_mode & 0o077:
        why = f"is open to its group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    else:
        return None
    return (f"{path} {why}: another user could answer there for tengig's servers and keep a deleted key's "
            f"sessions open; remove it (rm -r {path}) once no tengig server uses it, or set {APIKEYS_ENV_VAR} to "
            "a key file in a directory only this user can write")


def _ask(path: Path) -> int:
    """The sessions the server at ``path`` ended; 0 if nobody listens there any more (the socket goes)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock, _address(path) as address:
        sock.settimeout(ANSWER_SECONDS)
        try:
            sock.connect(address)
        except (ConnectionRefusedError, FileNotFoundError):
            path.unlink(missing_ok=True)
            return 0
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < 32:
            chunk = sock.recv(32)
            if not chunk:
                break
            answer += chunk
    match = ANSWER_RE.fullmatch(answer)
    if match is None:
        raise OSError(errno.EPROTO, f"it answered {answer!r}, not 'ended N'")
    return int(match.group(1))


def _listening(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with _address(path) as address:
            sock.bind(address)
        os.chmod(path, 0o600)
        sock.listen(16)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


@contextmanager
def _address(path: Path) -> Iterator[str]:
    """``path`` as an AF_UNIX address: itself, or through its directory's descriptor when it is longer
    than an address may be."""
    if len(os.fsencode(path)) < UNIX_PATH_MAX:
        yield str(path)
        return
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{path.name}"
    finally:
        os.close(fd)
