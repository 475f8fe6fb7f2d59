"""`tengig bench pool|net|smb|smallfiles|all`: a client of tengig's own tengig.bench service, hosted in this
process (server/in_thread.py), so the command measures exactly what the API and the panel measure:
where `--system` says (resolved by tengig.systems: this machine when it is the NAS, the lab only when
named), with the verdict printed and the run kept in the results database. With `--join N` the host
also listens on this machine's addresses (`--port`), and the desktops join the run there: the command
prints what each runs. `tengig bench systems` says what can be measured here and why."""
from __future__ import annotations

import json
import os
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any

import click

from ..backends.linux.ip import parse_ip_addr_json
from ..bench.run.report_text import report_text
from ..bench.join.session import SESSIONS
from ..bench.run.suite import BenchReport
from ..bench.run.over_api import run_over_api
from ..client.client import Client
from ..results.store import default_db_path
from ..runner import Runner
from ..server.apikeys import ApiKeyStore
from ..server.app import TengigServer
from ..server.in_thread import serving_in_thread
from ..systems import SYSTEMS, describe_systems
from ..verdict.targets import DEFAULT_TARGET
from .progress import ProgressBar

JOIN_PORT = 8610
END_TOLD_SECONDS = 15  # a desktop polls at least every 10 s


def _request(kind: str, system: str | None, pool: str | None, target: str, clients: tuple[str, ...], preset: str,
             repeats: int | None, streams: int, join: int, share: str | None, join_timeout: int) -> dict[str, Any]:
    request: dict[str, Any] = {"kind": kind, "target": target, "preset": preset, "streams": streams, "join": join,
                               "join_timeout": join_timeout}
    for key, value in (("system", system), ("pool", pool), ("repeats", repeats), ("share", share)):
        if value is not None:
            request[key] = value
    if clients:
        request["clients"] = list(clients)
    return request


def _addresses() -> list[str]:
    """This machine's IPv4 addresses a desktop may reach it at (not loopback)."""
    done = Runner().run(["ip", "-j", "addr", "show"], timeout=10, check=False)
    found = parse_ip_addr_json(done.stdout) if done.returncode == 0 else []
    return [a.split("/")[0] for i in found for a in i.ipv4 if not a.startswith("127.")]


def join_lines(token: str, port: int, share: str | None, addresses: list[str]) -> list[str]:
    """What the person at each desktop runs (one line per address of this NAS; the desktop takes the one
    on its link)."""
    hosts = addresses or ["THIS-NAS"]
    smb = " --smb-auth-file FILE" if share else ""
    lines = ["desktops join this run: on each, over its link to this NAS, run one of"]
    lines += [f"  tengig client join ws://{host}:{port} --token {token}{smb}" for host in hosts]
    if share:
        lines.append(f"  (Windows: tengig client kit --os windows --nas ws://{hosts[0]}:{port} --token {token} "
                     f"--share {share}, then run the script it writes)")
    return lines


def _let_desktops_hear_the_end(session_id: int | None) -> None:
    """This process hosts the run's API: the desktops take the run's end at their next poll before it stops."""
    session = SESSIONS.by_id(session_id) if session_id is not None else None
    if session is not None:
        session.wait_told(END_TOLD_SECONDS)


def _run(kind: str, system: str | None, pool: str | None, target: str, clients: tuple[str, ...], preset: str,
         repeats: int | None, streams: int, join: int, share: str | None, join_timeout: int, port: int,
         as_json: bool, db: str | None) -> None:
    if db:
        os.environ["TENGIG_DB"] = db  # the service records where the command was told
    request = _request(kind, system, pool, target, clients, preset, repeats, streams, join, share, join_timeout)
    bar = ProgressBar(f"bench {kind}")
    joined: dict[str, Any] = {}
    cancel = threading.Event()

    def show_join(session: dict[str, Any]) -> None:
        joined.update(session)
        for line in join_lines(session["token"], port, share, _addresses()):
            click.echo(line, err=True)

    with tempfile.TemporaryDirectory(prefix="tengig-bench-") as tmp:
        server = TengigServer(host="0.0.0.0" if join else None, port=port, unix_socket=Path(tmp) / "api.sock",
                              ui_dir=None, api_keys=ApiKeyStore(Path(tmp) / "apikeys.sqlite3"), sweep_orphans=False)
        # the server says "cannot listen on ADDRESS:PORT (...); choose another --port" when it cannot
        with serving_in_thread(server), Client(f"ws+unix://{server.unix_socket}") as api:
            # Ctrl-C: the run stops its tools, cleans up and is recorded as aborted
            previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
            try:
                result = run_over_api(api, request, on_session=show_join, progress=bar, cancel=cancel)
            finally:
                signal.signal(signal.SIGINT, previous)
                bar.done()
                _let_desktops_hear_the_end(joined.get("id"))
    if as_json:
        click.echo(json.dumps({"run_id": result["run_id"], "report": result["report"]}, indent=1))
    else:
        click.echo(report_text(BenchReport.model_validate(result["report"])))
        click.echo(f"\nstored as run {result['run_id']} in {default_db_path()}")


def _options(f):
    for opt in reversed([
        click.option("--system", type=click.Choice(SYSTEMS), default=None,
                     help="Where to measure: local (this machine is the NAS), lab (the embedded lab), truenas. "
                          "Default: this machine if it has a ZFS pool (never the lab); see `tengig bench systems`."),
        click.option("--pool", default=None, metavar="NAME", help="The pool to measure (default: the system's only pool)."),
        click.option("--target", default=DEFAULT_TARGET, show_default=True, help="Target disk to beat."),
        click.option("--join", type=click.IntRange(0, 16), default=0, show_default=True,
                     help="System local: how many desktops join the run over the network to measure the network "
                          "and SMB (the command prints what each runs)."),
        click.option("--share", default=None, metavar="NAME",
                     help="System local, with --join: the SMB share of this NAS's Samba the desktops copy to."),
        click.option("--join-timeout", type=click.IntRange(10, 3600), default=300, show_default=True,
                     help="Seconds to wait for the desktops to join."),
        click.option("--port", type=click.IntRange(1, 65535), default=JOIN_PORT, show_default=True,
                     help="With --join: the port desktops join on (this machine's every address)."),
        click.option("--clients", "clients", multiple=True, metavar="HOST",
                     help="System lab: the lab's desktop that joins (repeat for several); default: desk."),
        click.option("--preset", type=click.Choice(["quick", "full"]), default="quick", show_default=True),
        click.option("--repeats", type=click.IntRange(1, 20), default=None, help="Runs per test (default: preset's)."),
        click.option("--streams", type=click.IntRange(1, 64), default=4, show_default=True,
                     help="iperf3 streams for the N-stream test."),
        click.option("--json", "as_json", is_flag=True, help="Print the report as JSON."),
        click.option("--db", default=None, help="Results database (default $TENGIG_DB or /var/lib/tengig/results.sqlite3)."),
    ]):
        f = opt(f)
    return f


@click.group("bench")
def bench_group() -> None:
    """Measure pool (fio), network (iperf3) and SMB (smbclient), and judge against a target disk."""


def _command(kind: str, doc: str):
    @_options
    def command(**kw):
        _run(kind, **kw)

    command.__doc__ = doc
    return click.command(kind)(command)


for _kind, _doc in (("pool", "fio on a scratch dataset of the NAS pool (removed afterwards)."),
                    ("net", "iperf3 from each desktop to the NAS: 1 and N streams, both directions."),
                    ("smb", "each desktop's own SMB client copies to and from the share."),
                    ("smallfiles", "each desktop writes, lists, reads and deletes many small files (4 KiB, 64 KiB, "
                                   "1 MiB) through its SMB client: files/s and each file's time."),
                    ("all", "pool, network and SMB (and small files with --preset full), then the verdict.")):
    bench_group.add_command(_command(_kind, _doc))


@bench_group.command("systems")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def systems_command(as_json: bool) -> None:
    """What can be measured here (local, truenas, lab) and why."""
    states = describe_systems()
    if as_json:
        click.echo(json.dumps(states, indent=1))
        return
    for state in states:
        click.echo(f"{state['name']:8} {'usable' if state['usable'] else 'not usable':10} {state['reason']}")
