"""A job that desktops join, run from the command line: tengig's API hosted in this process (server/
in_thread.py), listening on this machine's addresses (``--port``) for the desktops, the job driven over
its unix socket (bench/run/over_api.py), and the join command printed once the job shows its token. Used by
`tengig bench --join`, `tengig lagg verify --join` and `tengig mesh verify --join`."""
from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Mapping
from typing import Any

import click

from ..backends.linux.ip import parse_ip_addr_json
from ..bench.join.session import SESSIONS
from ..client.client import Client
from ..errors import ValidationError
from ..runner import Runner
from .in_process import in_process_api
from .progress import ProgressBar

JOIN_PORT = 8610
END_TOLD_SECONDS = 15  # a desktop polls at least every 10 s

# run(api, on_session, bar, cancel) -> the job's result
Run = Callable[[Client, Callable[[dict[str, Any]], None], ProgressBar, threading.Event], Any]


def addresses() -> list[str]:
    """This machine's IPv4 addresses a desktop may reach it at (not loopback)."""
    done = Runner().run(["ip", "-j", "addr", "show"], timeout=10, check=False)
    found = parse_ip_addr_json(done.stdout) if done.returncode == 0 else []
    return [a.split("/")[0] for i in found for a in i.ipv4 if not a.startswith("127.")]


def join_lines(token: str, port: int, share: str | None, addresses: list[str], *, extra: str = "") -> list[str]:
    """What the person at each desktop runs (one line per address of this NAS; the desktop takes the one
    on its link). ``extra``: more of the join command (a mesh peer's --name HOST)."""
    hosts = addresses or ["THIS-NAS"]
    smb = " --smb-auth-file FILE" if share else ""
    lines = ["desktops join this run: on each, over its link to this NAS, run one of"]
    lines += [f"  tengig client join ws://{host}:{port} --token {token}{smb}{extra}" for host in hosts]
    if share:
        lines.append(f"  (Windows: tengig client kit --os windows --nas ws://{hosts[0]}:{port} --token {token} "
                     f"--share {share}, then run the script it writes)")
    return lines


def let_desktops_hear_the_end(session_id: int | None) -> None:
    """This process hosts the run's API: the desktops take the run's end at their next poll before it stops."""
    session = SESSIONS.by_id(session_id) if session_id is not None else None
    if session is not None:
        session.wait_told(END_TOLD_SECONDS)


def run_hosted(run: Run, *, label: str, port: int, listen: bool, share: str | None = None, extra: str = "",
               flags: Mapping[str, str] | None = None) -> Any:
    """``run`` against tengig's API hosted here (listening on every address at ``port`` when ``listen``);
    Ctrl-C aborts the job (it stops its tools and cleans up). ``flags``: API field -> the command's flag,
    for the errors."""
    bar = ProgressBar(label)
    joined: dict[str, Any] = {}
    cancel = threading.Event()

    def show_join(session: dict[str, Any]) -> None:
        joined.update(session)
        for line in join_lines(session["token"], port, share, addresses(), extra=extra):
            click.echo(line, err=True)

    with in_process_api(host="0.0.0.0" if listen else None, port=port) as api:
        previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
        try:
            return run(api, show_join, bar, cancel)
        except ValidationError as exc:
            if not flags:
                raise
            raise ValidationError([(flags.get(f, f), m) for f, m in exc.errors]) from exc
        finally:
            signal.signal(signal.SIGINT, previous)
            bar.done()
            let_desktops_hear_the_end(joined.get("id"))
