"""`tengig bench pool|net|smb|all`: measure where `--system` says (resolved by tengig.systems: this
machine when it is the NAS, the lab only when named), print the verdict, keep the run in the results
database. `tengig bench systems` says what can be measured here and why."""
from __future__ import annotations

import json
import signal
import threading

import click

from ..bench.report_text import report_text
from ..bench.suite import BenchRunRequest, run_and_record
from ..results.store import ResultStore
from ..systems import SYSTEMS, bench_system, describe_systems
from ..verdict.targets import DEFAULT_TARGET
from .progress import ProgressBar


def _run(kind: str, system: str | None, pool: str | None, target: str, clients: tuple[str, ...], preset: str,
         repeats: int | None, streams: int, as_json: bool, db: str | None) -> None:
    req = BenchRunRequest(kind=kind, target=target, clients=list(clients), preset=preset, repeats=repeats,
                          streams=streams)
    system = bench_system(system, pool)
    store = ResultStore(db)
    cancel = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())  # Ctrl-C: stop tools, clean up, record
    bar = ProgressBar(f"bench {kind}")
    try:
        run_id, report = run_and_record(system, req, store, progress=bar, cancel=cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
        bar.done()
    if as_json:
        click.echo(json.dumps({"run_id": run_id, "report": report.model_dump(mode="json")}, indent=1))
    else:
        click.echo(report_text(report))
        click.echo(f"\nstored as run {run_id} in {store.path}")


def _options(f):
    for opt in reversed([
        click.option("--system", type=click.Choice(SYSTEMS), default=None,
                     help="Where to measure: local (this machine is the NAS), lab (the embedded lab), truenas. "
                          "Default: this machine if it has a ZFS pool (never the lab); see `tengig bench systems`."),
        click.option("--pool", default=None, metavar="NAME", help="The pool to measure (default: the system's only pool)."),
        click.option("--target", default=DEFAULT_TARGET, show_default=True, help="Target disk to beat."),
        click.option("--clients", "clients", multiple=True, metavar="HOST",
                     help="Client host (repeat for several); default: the system's first client (desk on the lab)."),
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
                    ("net", "iperf3 over each client's link: 1 and N streams, both directions."),
                    ("smb", "smbclient copies to and from the share on each client."),
                    ("all", "pool, network and SMB, then the verdict.")):
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
