"""`tengig bench pool|net|smb|smallfiles|all`: a client of tengig's own tengig.bench service, hosted in this
process (server/in_thread.py), so the command measures exactly what the API and the panel measure:
where `--system` says (resolved by tengig.systems: this machine when it is the NAS, the lab only when
named), with the verdict printed and the run kept in the results database. With `--join N` the host
also listens on this machine's addresses (`--port`), and the desktops join the run there: the command
prints what each runs. `tengig bench systems` says what can be measured here and why."""
from __future__ import annotations

import json
import os
from typing import Any

import click

from ..bench.run.report_text import report_text
from ..bench.run.suite import BenchReport
from ..bench.run.over_api import run_over_api
from ..errors import ValidationError
from ..results.store import default_db_path
from ..systems import SYSTEMS, describe_systems
from ..verdict.targets import DEFAULT_TARGET
from .joined_host import JOIN_PORT, run_hosted
from .words import in_cli_words

# tengig.bench.run's request fields -> this command's flags (an API error is said with these: cli/words.py)
BENCH_FLAGS = {name: "--" + name.replace("_", "-") for name in (
    "system", "pool", "target", "join", "share", "join_timeout", "clients", "preset", "repeats", "streams",
    "scaling", "member_reads")} | {"smb_file": "--smb-mib"}


def _request(kind: str, system: str | None, pool: str | None, target: str, clients: tuple[str, ...], preset: str,
             repeats: int | None, streams: int, join: int, share: str | None, join_timeout: int,
             scaling: str = "auto", member_reads: bool = False, member_read_mib: int = 256,
             smb_mib: int | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"kind": kind, "target": target, "preset": preset, "streams": streams, "join": join,
                               "join_timeout": join_timeout, "scaling": scaling, "member_reads": member_reads,
                               "member_read_bytes": member_read_mib * 2**20}
    for key, value in (("system", system), ("pool", pool), ("repeats", repeats), ("share", share)):
        if value is not None:
            request[key] = value
    if smb_mib is not None:
        request["smb_file"] = smb_mib * 2**20
    if clients:
        request["clients"] = list(clients)
    return request


def _run(kind: str, system: str | None, pool: str | None, target: str, clients: tuple[str, ...], preset: str,
         repeats: int | None, streams: int, join: int, share: str | None, join_timeout: int, port: int,
         as_json: bool, db: str | None, scaling: str = "auto", member_reads: bool = False,
         member_read_mib: int = 256, smb_mib: int | None = None) -> None:
    if db:
        os.environ["TENGIG_DB"] = db  # the service records where the command was told
    request = _request(kind, system, pool, target, clients, preset, repeats, streams, join, share, join_timeout,
                       scaling, member_reads, member_read_mib, smb_mib)
    try:
        result = run_hosted(lambda api, show_join, bar, cancel: run_over_api(
            api, request, on_session=show_join, progress=bar, cancel=cancel), label=f"bench {kind}", port=port,
            listen=bool(join), share=share)
    except ValidationError as exc:
        raise in_cli_words(exc, BENCH_FLAGS) from exc
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
        click.option("--scaling", type=click.Choice(["auto", "on", "off", "only"]), default="auto", show_default=True,
                     help="The pool's thread sweep (SEQ1M at 1, 2, 4 ... threads up to the NAS's cores, each disk's "
                          "wait beside it): auto is on in full; only runs the sweep alone."),
        click.option("--member-reads", is_flag=True,
                     help="With the sweep: also read each disk of the pool alone, raw and read-only (touches every "
                          "disk)."),
        click.option("--member-read-mib", type=click.IntRange(16, 1024), default=256, show_default=True,
                     help="MiB read from each disk with --member-reads."),
        click.option("--smb-mib", type=click.IntRange(64, 1048576), default=None,
                     help="MiB per SMB copy (default: the preset's; quick sizes each copy to about 1.5 s of the "
                          "desktop's network)."),
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
