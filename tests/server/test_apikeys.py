"""API keys: hashed at rest (the plain key is nowhere in the file), verified, deleted for good."""
from __future__ import annotations

import asyncio
import os
import shutil
import socket
import stat
import tempfile
import threading
from pathlib import Path

import pytest

from tengig.errors import TengigError, ValidationError
from tengig.server import apikeys
from tengig.server.apikeys import ApiKeyStore
from tengig.server.events import EventHub
from tengig.server.revocation import RevocationListener, servers_dir


@pytest.fixture
def tmp_path():
    """A short directory of its own: the servers' sockets sit beside the key file, and a socket's path holds
    at most 107 bytes (pytest's own tmp_path under xdist's workers is longer than that allows)."""
    folder = Path(tempfile.mkdtemp(prefix="tgkeys-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def store(tmp_path) -> ApiKeyStore:
    return ApiKeyStore(tmp_path / "apikeys.sqlite3")


def test_plain_key_is_nowhere_in_the_database_file(store, tmp_path):
    record, key = store.create("backup-script")
    secret = key.split("-", 1)[1]
    files = [p for p in tmp_path.iterdir() if p.name.startswith("apikeys.sqlite3")]
    blob = b"".join(p.read_bytes() for p in files)
    assert b"backup-script" in blob  # the name is stored in clear: the check reads the right file
    assert secret.encode() not in blob and key.encode() not in blob
    assert stat.S_IMODE((tmp_path / "apikeys.sqlite3").stat().st_mode) == 0o600


def test_verify_accepts_the_key_and_nothing_else(store):
    record, key = store.create("k1")
    assert store.verify(key) == record
    assert store.verify(key, username="root") == record
    assert store.verify(key) == record  # second time: from the in-memory cache
    assert store.verify(key, username="alice") is None
    assert store.verify(key[:-1] + ("A" if key[-1] != "A" else "B")) is None
    assert store.verify("not-a-key") is None and store.verify("") is None
    other_id = f"{record.id + 1}-{key.split('-', 1)[1]}"
    assert store.verify(other_id) is None


def test_a_deleted_key_stops_working_at_once(store):
    _, key = store.create("temp")
    assert store.verify(key) is not None
    ApiKeyStore(store.path).delete("temp")  # another process (the CLI) deletes it
    assert store.verify(key) is None
    with pytest.raises(TengigError) as missing:
        store.delete("temp")
    assert missing.value.errno == 2


def test_names_are_validated_and_unique(store):
    store.create("one")
    with pytest.raises(ValidationError) as clash:
        store.create("one")
    assert clash.value.errno == 17 and clash.value.errors[0][0] == "name"
    with pytest.raises(ValidationError):
        store.create("bad name; drop table")
    assert [k.name for k in store.list()] == ["one"]


def test_default_path_sits_next_to_the_results_database(monkeypatch, tmp_path):
    monkeypatch.delenv(apikeys.APIKEYS_ENV_VAR, raising=False)
    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "x" / "results.sqlite3"))
    assert apikeys.default_apikeys_path() == tmp_path / "x" / "apikeys.sqlite3"
    monkeypatch.setenv(apikeys.APIKEYS_ENV_VAR, str(tmp_path / "keys.db"))
    assert apikeys.default_apikeys_path() == tmp_path / "keys.db"


def test_keys_have_truenas_format_and_are_matched_whole(store):
    """<id>-<64 letters and digits>, as TrueNAS makes them and the official client requires; the key
    with anything after it (a newline) is not the key."""
    import re

    keys = [store.create(f"fmt{i}")[1] for i in range(20)]
    assert all(re.fullmatch(r"[0-9]+-[A-Za-z0-9]{64}", key) for key in keys)
    assert store.verify(keys[0]) is not None
    assert store.verify(keys[0] + "\n") is None and store.verify(keys[0] + " ") is None
    assert store.verify(" " + keys[0]) is None


def test_a_delete_removes_the_socket_of_a_server_that_is_gone(store):
    """A server killed without stopping leaves its socket beside the key file: the next delete finds
    nobody listening there, removes it, and succeeds."""
    store.create("temp")
    directory = servers_dir(store.path)
    directory.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(directory / "dead0001.sock"))
    os.chmod(directory / "dead0001.sock", 0o600)  # as a server makes it
    assert store.delete("temp").sessions_ended == 0
    assert list(directory.iterdir()) == []


def test_a_delete_names_a_server_that_did_not_confirm(store):
    """A listener that hangs up without saying how many sessions it ended: the key is deleted all the
    same, and the error names that server's socket and what to do."""
    store.create("temp")
    directory = servers_dir(store.path)
    directory.mkdir(mode=0o700)
    mute = socket.socket(socket.AF_UNIX)
    mute.bind(str(directory / "mute0001.sock"))
    os.chmod(directory / "mute0001.sock", 0o600)
    mute.listen()

    def hang_up():
        conn, _ = mute.accept()
        conn.close()
    answering = threading.Thread(target=hang_up)
    answering.start()
    try:
        with pytest.raises(TengigError) as silent:
            store.delete("temp")
    finally:
        answering.join(30)
        mute.close()
    assert "deleted API key 'temp'" in str(silent.value) and "mute0001.sock" in str(silent.value)
    assert "restart that server" in str(silent.value)
    assert store.list() == []


STRANGER = 4242  # a uid that is not this test's


def _listening_socket(path):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.listen()
    return sock


@pytest.mark.abuse
def test_the_servers_directory_is_made_private(tmp_path):
    """Beside a key file in a folder anyone may write (like /tmp): the directory where the servers listen for
    deletes is this user's alone from the start, and so is a server's socket there."""
    store = ApiKeyStore(_world_writable(tmp_path) / "apikeys.sqlite3")
    listener = RevocationListener(store, EventHub())

    async def started_then_stopped():
        await listener.start()
        try:
            return os.lstat(servers_dir(store.path)), os.lstat(listener.path)
        finally:
            await listener.stop()
    directory, sock = asyncio.run(started_then_stopped())
    assert stat.S_ISDIR(directory.st_mode) and stat.S_IMODE(directory.st_mode) == 0o700
    assert directory.st_uid == os.geteuid()
    assert stat.S_ISSOCK(sock.st_mode) and stat.S_IMODE(sock.st_mode) == 0o600


@pytest.mark.abuse
@pytest.mark.parametrize("planted", ["stranger", "open", "symlink"])
def test_a_servers_directory_someone_else_could_write_is_refused_naming_it(tmp_path, planted):
    """Made first by another user (who could put a socket there that answers for this server, or lies to the
    deleting process), or open to others, or a symbolic link: neither a server nor a delete uses it."""
    store = ApiKeyStore(_world_writable(tmp_path) / "apikeys.sqlite3")
    store.create("temp")
    directory = servers_dir(store.path)
    _plant(directory, planted, tmp_path)
    liar = _listening_socket(directory / "0000liar.sock")
    try:
        with pytest.raises(TengigError) as refused:
            asyncio.run(RevocationListener(store, EventHub()).start())
        said = str(refused.value)
        assert str(directory) in said and WHY[planted] in said and "remove it" in said, said
        with pytest.raises(TengigError) as told:
            store.delete("temp")
        said = str(told.value)
        assert said.startswith("deleted API key 'temp', but ") and str(directory) in said and WHY[planted] in said
        assert _unasked(liar)  # nobody connected to the liar
        assert store.list() == []  # the key is gone all the same
    finally:
        liar.close()


@pytest.mark.abuse
@pytest.mark.parametrize("planted", ["stranger", "open"])
def test_a_socket_in_the_directory_that_is_not_the_users_alone_is_not_asked(tmp_path, planted):
    store = ApiKeyStore(tmp_path / "apikeys.sqlite3")
    store.create("temp")
    directory = servers_dir(store.path)
    directory.mkdir(mode=0o700)
    liar = _listening_socket(directory / "0000liar.sock")
    if planted == "stranger":
        os.chown(directory / "0000liar.sock", STRANGER, STRANGER)
    else:
        os.chmod(directory / "0000liar.sock", 0o666)
    try:
        with pytest.raises(TengigError) as told:
            store.delete("temp")
        said = str(told.value)
        assert "0000liar.sock" in said and WHY[planted] in said, said
        assert _unasked(liar)
    finally:
        liar.close()


WHY = {"stranger": f"belongs to uid {STRANGER}", "open": "open to its group or others", "symlink": "symbolic link"}


def _world_writable(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    return shared


def _plant(directory, planted, tmp_path):
    if planted == "symlink":
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir(mode=0o700)
        directory.symlink_to(elsewhere)
        return
    directory.mkdir(mode=0o700)
    if planted == "stranger":
        os.chown(directory, STRANGER, STRANGER)
    else:
        os.chmod(directory, 0o777)


def _unasked(sock) -> bool:
    sock.settimeout(0)
    try:
        sock.accept()[0].close()
    except BlockingIOError:
        return True
    return False


@pytest.mark.abuse
@pytest.mark.parametrize("planted", ["stranger", "writable", "symlink"])
def test_a_key_file_someone_else_could_write_is_refused_naming_it(tmp_path, planted):
    """Made first by another user in a folder anyone may write: whoever can write the file can add a key of
    their own. Neither a server nor `tengig apikey` uses it."""
    path = _world_writable(tmp_path) / "apikeys.sqlite3"
    if planted == "symlink":
        (tmp_path / "elsewhere.sqlite3").touch(mode=0o600)
        path.symlink_to(tmp_path / "elsewhere.sqlite3")
    else:
        path.touch(mode=0o600)
        if planted == "stranger":
            os.chown(path, STRANGER, STRANGER)
        else:
            os.chmod(path, 0o666)
    with pytest.raises(TengigError) as refused:
        ApiKeyStore(path)
    said = str(refused.value)
    assert str(path) in said and KEY_FILE_WHY[planted] in said and "TENGIG_APIKEYS_DB" in said, said


KEY_FILE_WHY = {"stranger": f"belongs to uid {STRANGER}", "writable": "writable by its group or others",
                "symlink": "symbolic link"}
