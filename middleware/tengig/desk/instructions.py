"""What the NAS may ask a desktop to run, checked before anything runs: every value that reaches a
command line is validated here (an address, a port, small integers, a share and a scratch name of
tengig's own shape). A NAS that asks for anything else gets a refusal, not a command."""
from __future__ import annotations

import ipaddress
import re
from typing import Any

from ..errors import ValidationError
from ..names import SHARE_RE

# A run's directory in the share: a plain one (tengig-bench-...), or a client's inside the run's scratch
# dataset (tengig-scratch-...\CLIENT); then optionally one of its files.
REMOTE_RE = re.compile(r"(tengig-bench-[A-Za-z0-9-]{1,80}|tengig-scratch-[A-Za-z0-9-]{1,64}\\[a-z0-9][a-z0-9-]{0,62})"
                       r"(\\(f\d{1,2}|evict)\.dat)?")
MIN_FILE_BYTES = 1024 * 1024
MAX_FILE_BYTES = 256 * 1024**3
# The bounds of every whole number an iperf3 instruction carries (the Windows kit reads them from here too).
IPERF3_LIMITS = {"port": (1, 65535), "seconds": (1, 600), "omit": (0, 60), "streams": (1, 64)}


def _int(params: dict[str, Any], name: str, lo: int, hi: int) -> int:
    value = params.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValidationError.one(f"instruction.{name}", f"{value!r} is not a whole number from {lo} to {hi}")
    return value


def _address(params: dict[str, Any]) -> str:
    try:
        return str(ipaddress.ip_address(str(params.get("server"))))
    except ValueError:
        raise ValidationError.one("instruction.server", f"{params.get('server')!r} is not an IP address") from None


def iperf3_argv(params: dict[str, Any]) -> list[str]:
    address = _address(params)
    n = {name: str(_int(params, name, lo, hi)) for name, (lo, hi) in IPERF3_LIMITS.items()}
    argv = ["iperf3", "-c", address, "-p", n["port"], "-t", n["seconds"], "-O", n["omit"], "-P", n["streams"], "-J"]
    return argv + (["-R"] if params.get("reverse") is True else [])


def smb_op(params: dict[str, Any]) -> tuple[str, str, str, str, int]:
    """(op, server, share, remote, size) of an SMB instruction, validated."""
    op = params.get("op")
    if op not in ("prepare", "put", "get"):
        raise ValidationError.one("instruction.op", f"{op!r} is not prepare, put or get")
    share = params.get("share")
    if not isinstance(share, str) or not SHARE_RE.fullmatch(share):
        raise ValidationError.one("instruction.share", f"{share!r} is not a share name")
    remote = params.get("remote")
    if not isinstance(remote, str) or not REMOTE_RE.fullmatch(remote):
        raise ValidationError.one("instruction.remote", f"{remote!r} is not a tengig scratch name")
    return op, _address(params), share, remote, _int(params, "size", MIN_FILE_BYTES, MAX_FILE_BYTES)
