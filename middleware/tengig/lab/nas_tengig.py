"""tengig on the lab's hosts, as a person runs it at each machine: `tengig serve` on nas (system local:
its own pool, its own smbd, named "nas") and `tengig client join` on a desktop, which reaches the NAS
only through its cable. The lab only starts these processes; nothing here measures.

`tengig serve` on nas listens on every address of nas (for the desktops, over their cables) and on a
unix socket in the lab's run directory (for whoever drives the run from this machine). It writes its
runs to the database it is given, so a run on the lab is in the same history as any other."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..client.client import Client
from ..errors import LabError
from . import samba
from .lab import Lab

PORT = 8610  # tengig's own port, on nas's addresses (nas's network namespace has its own ports)
NAS_NAME = "nas"
START_SECONDS = 30
TENGIG = (sys.executable, "-m", "tengig")


def join_url(lab: Lab, desktop: str, port: int = PORT) -> str:
    """The NAS's API as ``desktop`` reaches it: nas's address on their cable."""
    return f"ws://{lab.plan().address_of(lab.require_up().spec.nas, desktop)}:{port}"


def linked_desktops(lab: Lab) -> list[str]:
    """The lab's desktops with a cable to nas (the others cannot join)."""
    spec, plan = lab.require_up().spec, lab.plan()
    out = []
    for host in spec.hosts[1:]:
        try:
            plan.address_of(spec.nas, host)
        except Exception:  # no cable between them
            continue
        out.append(host)
    return out


@contextlib.contextmanager
def nas_tengig(lab: Lab, db: str | os.PathLike[str], *, socket: Path | None = None, port: int = PORT,
               prefix: Sequence[str] = (), ui_dir: Path | None = None, log_name: str = "nas-tengig.log",
               own_etc: bool = False) -> Iterator[tuple[Client, subprocess.Popen]]:
    """`tengig serve` on nas for as long as the block runs; yields (a client on its unix socket, as root,
    and the process). ``prefix``: argv before tengig's own (a test's strace). ``own_etc``: in nas's own
    /etc (its hosts file, as a mesh applied on the lab wrote it) instead of the root mount namespace
    (where the pool's zfs-fuse lives: a bare lab has none)."""
    st = lab.require_up()
    socket = socket or lab.paths.run / "nas-tengig.sock"
    socket.unlink(missing_ok=True)
    env = {**os.environ, "TENGIG_DB": str(db), "TENGIG_NAS_NAME": NAS_NAME}
    argv = [*prefix, *TENGIG, "serve", "--host", "0.0.0.0", "--port", str(port), "--unix-socket", str(socket)]
    argv += ["--ui-dir", str(ui_dir)] if ui_dir else []
    # nsenter: nas's network namespace, the root mount namespace (the zfs-fuse daemon and its mounts live there)
    proc = lab.spawn(st.spec.nas, argv, log_name=log_name, netns_mode="exec" if own_etc else "nsenter", env=env)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not socket.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise LabError(f"tengig serve on {st.spec.nas} did not start: "
                               f"{(lab.paths.logs / log_name).read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)
        with Client(f"ws+unix://{socket}") as api:
            yield api, proc
    finally:
        _stop(proc, wrapped=bool(prefix))
        socket.unlink(missing_ok=True)


def _stop(proc: subprocess.Popen, *, wrapped: bool) -> None:
    """Stop tengig serve: itself, or, under a prefix such as strace, its child (strace then writes out
    all it saw and ends)."""
    for pid in _children(proc.pid) if wrapped else [proc.pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def join_argv(lab: Lab, desktop: str, url: str, token: str, *, smb: bool = True) -> list[str]:
    """`tengig client join` as the person at ``desktop`` types it (the lab's SMB credentials with ``smb``)."""
    argv = [*TENGIG, "client", "join", url, "--token", token, "--name", desktop]
    if smb:
        argv += ["--smb-auth-file", str(lab.paths.samba / "client.auth"),
                 "--smb-conf", str(samba.client_dir(lab.paths, desktop) / "smb.conf")]
    return argv


def start_join(lab: Lab, desktop: str, url: str, token: str, *, smb: bool = True,
               log_name: str | None = None) -> subprocess.Popen:
    """`tengig client join` on ``desktop`` (its own network namespace, as that machine)."""
    return lab.spawn(desktop, join_argv(lab, desktop, url, token, smb=smb),
                     log_name=log_name or f"join-{desktop}.log")
