"""`tengig demo`: the whole flow on the embedded lab, as far as tengig goes today."""
from __future__ import annotations

import click

from ..lab import Lab, build_spec
from ..lab.roundtrip import smb_roundtrip
from ..lab.status import lab_status
from ..units import MiB
from .lab_commands import _describe_roundtrip, _print_status
from .progress import ProgressBar


@click.command("demo")
@click.option("--keep", is_flag=True, help="Leave the lab up afterwards (take it down with `tengig lab down`).")
def demo(keep: bool) -> None:
    """Bring the lab up (desk-nas at 1 Gb/s), show its status, prove an SMB round trip, take it down."""
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
    finally:
        if not keep:
            lab.down()
            click.echo("lab is down")
