"""A joined desktop's own disk, as it measured it (desk/own_disk.py) and as the verdict compares the NAS over
SMB with it: the target a person actually has ("your own SSD, measured here"), beside the catalogue's.

The desktop runs fio (its JSON: a write job, then a read job) or tengig's own timed copy (two
`tengig-copy` lines, put then get); the NAS reads either itself, refuses a file of another size than it
asked for, and never checks these bytes on its port: they never left the desktop. A figure it cannot believe
(not a finite number, or faster than MAX_OWN_DISK_BYTES_PER_S) is refused in words (ToolOutputError): the run
notes why the desktop's disk was not used (bench/join/joined_disk.py), it never fails for it."""
from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from typing import Literal

from pydantic import BaseModel, Field
from pydantic import ValidationError as PydanticError

from ...errors import ToolOutputError
from ...join_protocol.lines import OWN_COPY
from ...join_protocol.naming import DESK_FOLDER, KIT_FOLDER, fio_path
from ...units import format_mb_s
from ...verdict.models import Target
from ..parse.copy_parse import parse_own_copy, tool_of
from ..parse.fio_parse import parse_fio_json, require_io

Method = Literal["fio", "timed copy"]
# The fastest a desktop's own disk may be believed: 100 GB/s is several times the fastest local storage a
# desktop has (a PCIe 5.0 x16 card of NVMe drives striped: about 60 GB/s), and far above any link to a NAS,
# so a faster figure is a tool's or a peer's error, never a disk: it is refused, not made the target's title.
MAX_OWN_DISK_BYTES_PER_S = 100e9  # 100 GB/s


class OwnDisk(BaseModel):
    """What a desktop measured of its own disk."""

    path: str = Field(description="The directory the desktop measured in (its --disk).")
    file_size: int = Field(description="Bytes written, then read (the SMB copies' size).")
    method: Method = Field(description="fio (direct I/O, 1 MiB blocks, one at a time) or tengig's own timed copy "
                           "(4 MiB blocks, one at a time).")
    how: str = Field(description="How the cache was kept out, as the desktop said.")
    write_bytes_per_s: float = Field(gt=0)
    read_bytes_per_s: float = Field(gt=0)


def measured_in(file: str) -> str:
    """The directory the desktop was given (--disk, -Disk), from the file it measured with."""
    path = PurePosixPath(file) if file.startswith("/") else PureWindowsPath(file) if "\\" in file else \
        PurePosixPath(file)
    folder = path.parent
    return str(folder.parent if folder.name.startswith((KIT_FOLDER, DESK_FOLDER)) else folder)


def _believe(rate: float, direction: str, tool: str) -> None:
    """Nothing when a disk can move ``rate`` (bytes/s), else ToolOutputError saying why not."""
    if not 0 < rate <= MAX_OWN_DISK_BYTES_PER_S:  # NaN fails too
        raise ToolOutputError(f"the desktop's {tool} reports its disk {direction}s {rate:.6g} bytes/s: not a rate "
                              f"a disk has (more than 0, at most {MAX_OWN_DISK_BYTES_PER_S / 1e9:g} GB/s)")


def parse_own_disk(argv: list[str], stdout: str, stderr: str, *, size: int) -> OwnDisk:
    """What the desktop measured; ToolOutputError, saying why, for anything the NAS cannot believe."""
    try:
        disk = _parsed(argv, stdout, stderr, size=size)
    except (PydanticError, OverflowError) as exc:  # a copy of 1e-310 s, a rate of 400 digits: infinite
        raise ToolOutputError(f"the desktop's {tool_of(argv)} printed a rate that is not a finite number") from exc
    for rate, direction in ((disk.write_bytes_per_s, "write"), (disk.read_bytes_per_s, "read")):
        _believe(rate, direction, tool_of(argv))
    return disk


def _parsed(argv: list[str], stdout: str, stderr: str, *, size: int) -> OwnDisk:
    tool = tool_of(argv)
    file = argv[-1] if tool == OWN_COPY else next((a.split("=", 1)[1] for a in argv if a.startswith("--filename=")),
                                                   "")
    path = measured_in(fio_path(file) if tool == "fio" else file) if file else "?"
    if tool == "fio":
        jobs = {j.name: j for j in parse_fio_json(stdout)}
        rates = {}
        for name in ("write", "read"):
            if name not in jobs:
                raise ToolOutputError(f"the desktop's fio printed no {name} job")
            io = require_io(jobs[name], name)
            if io.bytes != size:
                raise ToolOutputError(f"the desktop's fio {name} moved {io.bytes} bytes, the NAS asked for {size}")
            rates[name] = io.bytes_per_s
        return OwnDisk(path=path, file_size=size, method="fio", how="direct I/O (fio --direct=1)",
                       write_bytes_per_s=rates["write"], read_bytes_per_s=rates["read"])
    if tool == OWN_COPY:
        write = parse_own_copy(stdout, direction="write", expected_bytes=size)
        read = parse_own_copy(stdout, direction="read", expected_bytes=size)
        line = next(ln for ln in stdout.splitlines() if ln.startswith(f"{OWN_COPY}: put "))
        how = line.split(" s (", 1)[1][:-1] if " s (" in line else ""
        return OwnDisk(path=path, file_size=size, method="timed copy", how=how,
                       write_bytes_per_s=write.bytes_per_s, read_bytes_per_s=read.bytes_per_s)
    raise ToolOutputError(f"the desktop measured its disk with {argv[0] if argv else 'nothing'!r}: tengig reads "
                          f"fio and {OWN_COPY} only{': ' + stderr.strip()[-300:] if stderr.strip() else ''}")


def own_disk_target(client: str, disk: OwnDisk) -> Target:
    """The desktop's measured disk as a target to beat (its name unique per client)."""
    return Target(name=f"own-disk-{client}"[:40].rstrip("-"),
                  title=(f"{client}'s own disk ({disk.path}), measured here: {format_mb_s(disk.read_bytes_per_s)} "
                         f"read, {format_mb_s(disk.write_bytes_per_s)} write"),
                  read_bytes_per_s=disk.read_bytes_per_s, write_bytes_per_s=disk.write_bytes_per_s,
                  source=f"{disk.method} on {client}: {disk.file_size} bytes written then read sequentially, one "
                         f"block at a time, {disk.how}",
                  builtin=False)
