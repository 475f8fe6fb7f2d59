"""A desktop on a cable of its own, for tests that need one (a mesh verify's peer server listens only on
an address of the desktop's own /24 or narrower cable, never on loopback): a network namespace with a
veth pair, one end holding CABLE_ADDRESS/24 (this kernel has no dummy interfaces). `tengig client join`
runs in it (``prefix``), and a test makes the stand-in NAS's listening sockets in it too (``listening``),
so the NAS and the desktop share that address. ``processes()`` are every process left in it: none, once
the desktop has ended and cleaned up."""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

CABLE_ADDRESS = "10.251.7.1"  # its own namespace: nothing else on the machine sees it
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class DeskNetns:
    name: str

    @property
    def prefix(self) -> tuple[str, ...]:
        return ("nsenter", f"--net=/run/netns/{self.name}", "--")  # execs the command: its pid is the desktop's

    def listening(self, port: int = 0) -> socket.socket:
        """A TCP socket listening on CABLE_ADDRESS in the namespace (made from a thread that enters it: a
        socket keeps the namespace it was made in)."""
        made: dict[str, object] = {}

        def make() -> None:
            fd = os.open(f"/run/netns/{self.name}", os.O_RDONLY)
            try:
                if _libc.setns(fd, CLONE_NEWNET) != 0:
                    made["error"] = OSError(ctypes.get_errno(), f"setns into {self.name}")
                    return
            finally:
                os.close(fd)
            sock = socket.socket()
            sock.bind((CABLE_ADDRESS, port))
            sock.listen(8)
            made["sock"] = sock
        entering = threading.Thread(target=make)
        entering.start()
        entering.join()
        if "error" in made:
            raise made["error"]  # type: ignore[misc]
        return made["sock"]  # type: ignore[return-value]

    def processes(self) -> list[str]:
        """The command lines of every process in the namespace."""
        pids = subprocess.run(["ip", "netns", "pids", self.name], capture_output=True, text=True,
                              check=True).stdout.split()
        lines = []
        for pid in pids:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    lines.append(fh.read().replace(b"\0", b" ").decode(errors="replace").strip() or f"pid {pid}")
            except OSError:
                continue  # it ended meanwhile
        return lines


@contextmanager
def desk_netns() -> Iterator[DeskNetns]:
    name = f"tgtest-desk-{os.getpid()}"  # not the lab's tg- prefix: the lab's cleanup leaves it alone
    steps = [["ip", "netns", "add", name], ["ip", "-n", name, "link", "set", "lo", "up"],
             ["ip", "-n", name, "link", "add", "cable0", "type", "veth", "peer", "name", "cable1"],
             ["ip", "-n", name, "addr", "add", f"{CABLE_ADDRESS}/24", "dev", "cable0"],
             ["ip", "-n", name, "link", "set", "cable0", "up"], ["ip", "-n", name, "link", "set", "cable1", "up"]]
    try:
        for argv in steps:
            subprocess.run(argv, check=True, capture_output=True, timeout=30)
        yield DeskNetns(name)
    finally:
        # whatever a failed test left there would outlive the namespace's name
        left = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True, timeout=30).stdout
        for pid in left.split():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)
