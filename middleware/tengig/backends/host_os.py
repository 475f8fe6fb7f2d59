"""The operating system of the NAS a benchmark measures, as the benchmark asks for it (HostOs): its ARC
counters, the cache to drop before a read, fio's ioengine, its ports and their byte counters. The implementations, Linux's and
FreeBSD's, and the one place that picks one are tengig.systems.host_os; a benchmark gets the NAS's from its
system (``BenchSystem.os``)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from ..nic.models import Nic
    from ..runner import Completed
    from .arcstats import ArcSample

OsName = Literal["linux", "freebsd"]
COUNTER_TIMEOUT = 10  # seconds: a read of the ports' byte counters is quick (HostOs.port_bytes)


class Context(Protocol):
    """What an OS's steps need of a benchmark's context (bench.context.BenchContext): run on a host."""

    def run(self, host: str, argv: Sequence[str], *, timeout: float, tool: str | None = None,
            record: bool = True, check: bool = True) -> "Completed": ...


class HostOs(Protocol):
    name: OsName
    fio_ioengine: str

    def nics(self, ssh_connection: str | None = None, *, include_loopback: bool = False) -> "list[Nic]":
        """This machine's ports; the one an SSH session (SSH_CONNECTION's value) arrived on is marked."""
        ...

    def read_arc(self, ctx: Context, host: str) -> "ArcSample":
        """The ARC's hits, misses and maximum size on ``host`` (the NAS)."""
        ...

    def port_bytes(self, ctx: Context, host: str) -> dict[str, tuple[int, int]]:
        """Every port's byte counters on ``host`` (the NAS): {name: (bytes received, bytes sent)}."""
        ...

    def drop_caches(self, ctx: Context, host: str) -> bool | None:
        """Before a read: drop what the OS caches outside the ARC. True: dropped; False: the drop failed;
        None: this OS has no such cache in a ZFS read's path, so there is nothing to drop."""
        ...


def all_dropped(so_far: bool | None, this: bool | None) -> bool | None:
    """A read phase's page cache state across its runs: None where the OS has nothing to drop, else True
    only when every drop worked."""
    return None if this is None else so_far is not False and this


