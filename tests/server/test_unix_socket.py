"""The unix socket: root (by SO_PEERCRED) is authenticated at once, as on middlewared's socket; any
other uid starts unauthenticated and needs an API key like a TCP client."""
from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct

import pytest

from .checks import assert_error
from .harness import open_unix_raw, running_server

NOBODY = 65534


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("unix")) as srv:
        yield srv


def test_root_peer_is_trusted_without_a_key(server):
    assert os.geteuid() == 0, "this test proves root trust; run the tests as root"

    async def scenario():
        session, conn = await open_unix_raw(server.unix_socket)
        async with session:
            targets = await conn.result("tengig.targets.query")
            job_id = await conn.result("demo.jobs.count", {"steps": 1})
            jobs = await conn.result("core.get_jobs", [["id", "=", job_id]])
            return targets, jobs
    targets, jobs = asyncio.run(scenario())
    assert targets and jobs[0]["credentials"] == {"type": "UNIX_SOCKET", "data": {"username": "root",
                                                                                   "pid": os.getpid()}}


def test_non_root_peer_is_not_trusted(server):
    sock = _connect_as(NOBODY, server.unix_socket)
    with sock:
        _ws_handshake(sock)
        _ws_send(sock, {"jsonrpc": "2.0", "id": 1, "method": "tengig.targets.query", "params": []})
        refused = _ws_receive(sock)
        _ws_send(sock, {"jsonrpc": "2.0", "id": 2, "method": "auth.login_with_api_key", "params": [server.api_key]})
        login = _ws_receive(sock)
        _ws_send(sock, {"jsonrpc": "2.0", "id": 3, "method": "tengig.targets.query", "params": []})
        after = _ws_receive(sock)
    assert_error(refused, -32001, errno=207)
    assert login["result"] is True and after["result"][0]["name"] == "hdd-15k-best"


def _connect_as(uid: int, path) -> socket.socket:
    """A unix socket connected by a child process running as ``uid`` (the kernel records the peer's
    credentials at connect time), handed back to us over a socketpair."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:  # child: only stdlib calls already imported, then _exit
        code = 0
        try:
            os.setgid(uid)
            os.setuid(uid)
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(str(path))
            socket.send_fds(theirs, [b"x"], [client.fileno()])
        except BaseException:
            code = 1
        os._exit(code)
    theirs.close()
    _, fds, _, _ = socket.recv_fds(ours, 1, 1)
    ours.close()
    _, status = os.waitpid(pid, 0)
    assert status == 0 and fds, "the child could not connect as another user"
    return socket.socket(fileno=fds[0])


# A websocket client in a few lines (RFC 6455), because the socket above came from another process.
def _ws_handshake(sock: socket.socket) -> None:
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /api/current HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head


def _ws_send(sock: socket.socket, message: dict) -> None:
    payload = json.dumps(message).encode()
    mask = os.urandom(4)
    header = bytes([0x81]) + (bytes([0x80 | len(payload)]) if len(payload) < 126
                              else bytes([0x80 | 126]) + struct.pack("!H", len(payload)))
    sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def _ws_receive(sock: socket.socket) -> dict:
    def read(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            assert chunk, "connection closed"
            data += chunk
        return data
    first, second = read(2)
    assert first & 0x0F == 1, f"expected a text frame, opcode {first & 0x0F}"
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", read(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", read(8))[0]
    return json.loads(read(length))
