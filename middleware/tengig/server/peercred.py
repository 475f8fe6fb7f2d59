"""Who is at the other end of a unix socket (SO_PEERCRED, Linux), as middlewared trusts root on its socket."""
from __future__ import annotations

import socket
import struct
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PeerCredentials:
    pid: int
    uid: int
    gid: int


def peer_credentials(transport: Any) -> PeerCredentials | None:
    """The peer's pid/uid/gid for a unix-socket transport; None for TCP or when the kernel will not say."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None or sock.family != socket.AF_UNIX or not hasattr(socket, "SO_PEERCRED"):
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return None
    pid, uid, gid = struct.unpack("3i", raw)
    return PeerCredentials(pid, uid, gid)
