"""`tengig demo`: the main flow on the embedded lab: bring it up (desk-nas at 1 Gb/s), prove an SMB round
trip, run the quick benchmark suite as on a user's NAS (tengig on nas measures its own pool, desk joins
over its cable) and print the verdict, serve the panel and print its URL, take the lab down."""
from __future__ import annotations

import asyncio
import os
import sys

import click

from ..bench.run.report_text import report_text
from ..bench.run.record import run_and_record
from ..bench.run.suite import BenchRunRequest
from ..lab import Lab, build_spec
from ..lab.roundtrip import smb_roundtrip
from ..lab.status import lab_status
from ..results.store import ResultStore
from ..systems import bench_system
from ..units import MiB
from ..verdict.targets import DEFAULT_TARGET
from .lab_commands import _describe_roundtrip, _print_status
from .panel_serve import serve_panel
from .progress import ProgressBar


@click.command("demo")
@click.option("--keep", is_flag=True, help="Leave the lab up afterwards (take it down with `tengig lab down`).")
@click.option("--target", default=DEFAULT_TARGET, show_default=True, help="Target disk for the verdict.")
@click.option("--db", default=None, help="Results database (default $TENGIG_DB or /var/lib/tengig/results.sqlite3).")
@click.option("--serve/--no-serve", "serve", default=None,
              help="At the end, serve the panel (with the lab up) until Ctrl-C. Default: only when stdout is a "
              "terminal; otherwise the panel is started, checked, its URL printed, and stopped.")
@click.option("--port", default=8610, show_default=True, type=click.IntRange(0, 65535),
              help="Port of the panel on 127.0.0.1 (a free one if it is taken).")
def demo(keep: bool, target: str, db: str | None, serve: bool | None, port: int) -> None:
    """Lab up (desk-nas at 1 Gb/s), status, SMB round trip, quick suite and verdict, the panel, lab down."""
    if db:
        os.environ["TENGIG_DB"] = db  # the panel's server reads the same results (and keeps its keys next to them)
    interactive = sys.stdout.isatty() if serve is None else serve
    lab = Lab()
    left = lab.down()  # a previous run's leftovers must not block the demo
    for note in left:
        click.echo(f"note: cleaned up an earlier lab: {note}", err=True)
    spec = build_spec(["desk-nas=1g", "lab-nas=10g", "desk-lab=10g"])
    bar = ProgressBar("lab up")
    lab.up(spec, progress=bar)
    bar.done()
    try:
        _print_status(lab_status(lab))
        click.echo(_describe_roundtrip(smb_roundtrip(lab, "desk", 256 * MiB)))
        store = ResultStore(db)
        bar = ProgressBar("bench all")
        run_id, report = run_and_record(bench_system("lab"), BenchRunRequest(kind="all", target=target), store,
                                        progress=bar)
        bar.done()
        click.echo("")
        click.echo(report_text(report))
        click.echo(f"\nstored as run {run_id} in {store.path}")
        asyncio.run(serve_panel(port, interactive))
    finally:
        if not keep:
            lab.down()
            click.echo("lab is down")
