"""A websocket client on a bare socket that writes frames and reads nothing unless asked: the client
that never reads (aiohttp's client always drains its socket, so it cannot play one)."""
from __future__ import annotations

import base64
import json
import os
import socket
import struct


class RawWebsocket:
    def __init__(self, host: str, port: int, path: str = "/api/current", *, rcvbuf: int | None = None):
        self.sock = socket.socket()
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(30)
        self.sock.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           ).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during the handshake")
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head

    def send(self, message: dict) -> None:
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        length = len(payload)
        header = bytes([0x81])
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def call(self, request_id: int, method: str, *params) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": list(params)})

    def closed_by_server(self) -> bool:
        """Read until the server ends the connection (True), or the socket timeout passes (False)."""
        return closed_by_server(self.sock)

    def close(self) -> None:
        self.sock.close()


def closed_by_server(sock: socket.socket) -> bool:
    """Read ``sock`` until the server ends the connection (True), or its timeout passes (False)."""
    try:
        while sock.recv(65536):
            pass
    except socket.timeout:
        return False
    except OSError:
        return True
    return True
