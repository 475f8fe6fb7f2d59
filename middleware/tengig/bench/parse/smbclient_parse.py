"""Parse what Samba's smbclient prints for `get` and `put` (pure).

    getting file \\big.bin of size 268435456 as /dev/null (107421.5 KiloBytes/sec) (average ...)
    putting file /tmp/big.bin as \\big.bin (98765.4 kb/s) (average 98765.4 kb/s)

smbclient's rate is KiB/s (1024 bytes) over its own transfer time, without connect and logon; the
seconds are recovered from it. A line that is missing, or errors such as NT_STATUS_*, raise."""
from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ToolOutputError

_GET = re.compile(r"getting file \S.* of size (\d+) as .* \(([\d.]+) (?:KiloBytes/sec|kb/s)\)")
_PUT = re.compile(r"putting file .* as \S.* \(([\d.]+) (?:KiloBytes/sec|kb/s)\)")
_NT_STATUS = re.compile(r"NT_STATUS_[A-Z_]+")
HINTS = {
    "NT_STATUS_DISK_FULL": "the share's dataset is full or at its quota",
    "NT_STATUS_BAD_NETWORK_NAME": "the server has no such share",
    "NT_STATUS_LOGON_FAILURE": "wrong user name or password",
    "NT_STATUS_ACCESS_DENIED": "the user may not do this on the share",
    "NT_STATUS_CONNECTION_REFUSED": "nothing listens for SMB on the server (is smbd running?)",
    "NT_STATUS_OBJECT_NAME_NOT_FOUND": "no such file on the share",
    "NT_STATUS_IO_TIMEOUT": "the server stopped answering",
}


def nt_status_error(output: str) -> ToolOutputError | None:
    """Every NT_STATUS smbclient printed, first cause first, with what it means when known."""
    codes = list(dict.fromkeys(_NT_STATUS.findall(output)))
    if not codes:
        return None
    hint = next((HINTS[c] for c in codes if c in HINTS), None)
    return ToolOutputError(f"smbclient failed: {', '.join(codes)}" + (f" ({hint})" if hint else ""))


class SmbTransfer(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False)

    direction: str = Field(description="read (get from the share) or write (put to the share)")
    bytes: int
    seconds: float = Field(description="smbclient's transfer time, s (connect and logon excluded)")
    bytes_per_s: float


def parse_transfer(output: str, *, direction: str, expected_bytes: int) -> SmbTransfer:
    error = nt_status_error(output)
    if error:
        raise error
    if direction == "read":
        m = _GET.search(output)
        if not m:
            raise ToolOutputError(f"smbclient printed no 'getting file' line: {output.strip()[:300] or '(nothing)'}")
        size, kibps = int(m.group(1)), float(m.group(2))
    elif direction == "write":
        m = _PUT.search(output)
        if not m:
            raise ToolOutputError(f"smbclient printed no 'putting file' line: {output.strip()[:300] or '(nothing)'}")
        size, kibps = expected_bytes, float(m.group(1))
    else:
        raise ValueError(f"direction must be read or write, not {direction!r}")
    if size != expected_bytes:
        raise ToolOutputError(f"smbclient moved {size} bytes, expected {expected_bytes}")
    if kibps <= 0 or size <= 0:
        raise ToolOutputError("smbclient reports no bytes moved")
    bytes_per_s = kibps * 1024
    return SmbTransfer(direction=direction, bytes=size, seconds=size / bytes_per_s, bytes_per_s=bytes_per_s)
