"""`tengig results list|show|compare|export|delete`: the stored runs, through tengig's own tengig.results
service hosted in this process (in_process.py), as `tengig bench` runs its benchmarks: what the panel and
`tengig call` see. Tables carry their units; --json and --csv give the same rows for programs. `show` prints
a run's report as `tengig bench` printed it; `export --format md` writes the Markdown report to share.

A results database that is not there, not a database, or a run id it does not hold: one line naming what
to give (--db, RUN), and nothing written."""
from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from ..bench.run.report_text import report_text
from ..bench.run.suite import BenchReport
from ..client.errors import ClientError
from ..client.client import Client
from ..errors import TengigError, ValidationError
from ..results.models import RUN_KINDS, RUN_STATUSES
from ..results.reading import shown_from_store
from ..results.store import DB_ENV_VAR, ResultStore, default_db_path
from .in_process import in_process_api
from .results_views import (
    COMPARE_COLUMNS, compare_rows, compare_text, csv_text, for_terminal, list_table, run_row,
)

DB_HELP = f"Results database (default ${DB_ENV_VAR} or /var/lib/tengig/results.sqlite3)."
LIST_CSV_COLUMNS = ("id", "started_utc", "kind", "status", "system", "clients", "smb_read_bytes_per_s",
                    "smb_write_bytes_per_s", "target", "result", "bottleneck")


def _database(db: str | None) -> Path:
    """The database the command reads, checked here so a problem is said in this command's words (--db)."""
    path = Path(db) if db else default_db_path()
    if not path.is_file():
        raise TengigError(f"no results database at {path}: `tengig bench` records runs there, or give --db the "
                          "database's path", errno=errno.ENOENT)
    ResultStore(path, path_option="--db")  # opens it, or says why not (not a database, a newer schema)
    os.environ[DB_ENV_VAR] = str(path)  # the service hosted below opens the same file
    return path


@contextmanager
def _results_api(db: str | None, fields: dict[str, str] | None = None) -> Iterator[tuple[Client, Path]]:
    """The API and the database; an API error comes out in CLI words (``fields``: API field -> CLI name)."""
    path = _database(db)
    try:
        with in_process_api() as api:
            yield api, path
    except ClientError as exc:
        if exc.field_errors:
            raise ValidationError([((fields or {}).get(f, f), m) for f, m in exc.field_errors]) from exc
        if exc.errno == errno.ENOENT:
            raise TengigError(f"{exc.reason} in {path} (`tengig results list` shows its runs)",
                              errno=errno.ENOENT) from exc
        raise TengigError(exc.reason, errno=exc.errno) from exc


def _format_options(f):
    f = click.option("--csv", "as_csv", is_flag=True, help="Print as CSV (the table's rows, numbers in bytes/s).")(f)
    f = click.option("--json", "as_json", is_flag=True, help="Print as JSON.")(f)
    return click.option("--db", default=None, metavar="FILE", help=DB_HELP)(f)


def _one_format(as_json: bool, as_csv: bool) -> None:
    if as_json and as_csv:
        raise ValidationError.one("--json", "choose one of --json and --csv")


def echo(text: str, *, nl: bool = True) -> None:
    """Every print of a stored run to stdout: what a desktop, a tool or a crafted database put in it reaches
    the terminal escaped (ESC as \\x1b), never as what a terminal acts on."""
    click.echo(for_terminal(text), nl=nl)


def write_output(text: str, output: Path | None) -> None:
    """To stdout (escaped), or to ``output`` as it is, whole or not at all (a temporary file beside it, then
    renamed)."""
    if output is None:
        echo(text, nl=not text.endswith("\n"))
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.", suffix=".tmp")
    except OSError as exc:
        raise ValidationError.one("--output", f"cannot write {output} ({exc.strerror}); give a file in a "
                                  "directory you can write to") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, output)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ValidationError.one("--output", f"cannot write {output} ({exc.strerror}); give a file in a "
                                  "directory you can write to") from exc
    click.echo(f"wrote {output} ({len(text.encode())} bytes)", err=True)


@click.group("results")
def results_group() -> None:
    """The runs tengig bench stored: list, show, compare, export (JSON, CSV, Markdown), delete."""


@results_group.command("list")
@click.option("--kind", type=click.Choice(RUN_KINDS), default=None, help="Only runs of this kind.")
@click.option("--status", type=click.Choice(RUN_STATUSES), default=None, help="Only runs with this status.")
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True, help="At most this many runs.")
@_format_options
def list_command(kind: str | None, status: str | None, limit: int, db: str | None, as_json: bool,
                 as_csv: bool) -> None:
    """Stored runs, newest first: one line each (result, margin, bottleneck, SMB figures)."""
    _one_format(as_json, as_csv)
    options: dict[str, Any] = {"limit": limit}
    options.update({k: v for k, v in (("kind", kind), ("status", status)) if v is not None})
    with _results_api(db, {f"options.{k}": f"--{k}" for k in ("kind", "status", "limit")}) as (api, path):
        rows = [_row(run, path) for run in api.call("tengig.results.query", options)]
    if as_json:
        echo(json.dumps(rows, indent=1))
    elif as_csv:
        echo(csv_text(rows, LIST_CSV_COLUMNS), nl=False)
    elif not rows:
        echo(f"no runs in {path}" + (" of that kind or status" if kind or status else ""))
    else:
        echo(list_table(rows))


def _row(run: dict[str, Any], path: Path) -> dict[str, Any]:
    with shown_from_store(path, [run["id"]]):
        return run_row(run)


@results_group.command("show")
@click.argument("run", type=click.IntRange(1))
@_format_options
def show_command(run: int, db: str | None, as_json: bool, as_csv: bool) -> None:
    """The report of run RUN as `tengig bench` printed it (a failed run: its error)."""
    _one_format(as_json, as_csv)
    with _results_api(db, {"id": "RUN", "ids": "RUN"}) as (api, path):
        if as_csv:
            echo(api.call("tengig.results.export", "csv", [run]), nl=False)
            return
        record = api.call("tengig.results.get", run)
    if as_json:
        echo(json.dumps(record, indent=1))
        return
    with shown_from_store(path, [run]):
        echo(show_text(record))


def show_text(record: dict[str, Any]) -> str:
    if record["status"] != "success":
        return f"run {record['id']} ({record['kind']}) {record['status']}: {record.get('error') or 'no reason kept'}"
    try:
        return report_text(BenchReport.model_validate(record["results"]))
    except ValueError:  # not a bench report (a run recorded by other means): its figures as stored
        return json.dumps(record["results"], indent=1)


@results_group.command("compare")
@click.argument("a", type=click.IntRange(1))
@click.argument("b", type=click.IntRange(1))
@_format_options
def compare_command(a: int, b: int, db: str | None, as_json: bool, as_csv: bool) -> None:
    """Run B against run A: every ceiling and figure side by side, the change in %, which ceiling moved."""
    _one_format(as_json, as_csv)
    with _results_api(db, {"a": "A", "b": "B"}) as (api, _):
        comparison = api.call("tengig.results.compare", a, b)
    if as_json:
        echo(json.dumps(comparison, indent=1))
    elif as_csv:
        echo(csv_text(compare_rows(comparison), COMPARE_COLUMNS), nl=False)
    else:
        echo(compare_text(comparison))


@results_group.command("export")
@click.argument("runs", metavar="[RUN]...", nargs=-1, type=click.IntRange(1))
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "md"]), default="json", show_default=True,
              help="json: the runs with raw tool outputs; csv: one row per run and figure; md: one run's Markdown "
                   "report. Passwords, tokens and keys are left out of every format.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Write to this file (whole or not at all) instead of printing.")
@click.option("--db", default=None, metavar="FILE", help=DB_HELP)
def export_command(runs: tuple[int, ...], fmt: str, output: Path | None, db: str | None) -> None:
    """The runs RUN... (default: every run, newest first) as JSON or CSV, or one run as Markdown."""
    if fmt == "md" and len(runs) != 1:
        raise ValidationError.one("RUN", f"--format md is one run's report: give exactly one RUN (got {len(runs)})")
    with _results_api(db, {"ids": "RUN", "format": "--format"}) as (api, _):
        text = api.call("tengig.results.export", fmt, list(runs) or None)
    write_output(text, output)


@results_group.command("delete")
@click.argument("run", type=click.IntRange(1))
@click.option("--db", default=None, metavar="FILE", help=DB_HELP)
def delete_command(run: int, db: str | None) -> None:
    """Delete run RUN and its raw tool outputs (a run still running is refused)."""
    with _results_api(db, {"id": "RUN"}) as (api, path):
        api.call("tengig.results.delete", run)
    click.echo(f"deleted run {run} and its raw tool outputs from {path}", err=True)
