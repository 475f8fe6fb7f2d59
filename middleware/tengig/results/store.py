"""The history of runs in SQLite (stdlib): one row per run, one row per tool invocation, and the
user's own targets.

WAL journal with synchronous=FULL: a crash loses at most the transaction in flight, never committed
runs and never the file; readers never block the writer. One connection per call (no shared
connection, no lock needed): SQLite serialises writers (BEGIN IMMEDIATE, 30 s busy timeout), so
threads and processes can share one database. The schema and its migrations live in schema.py.

A failed or aborted run keeps its error and raw outputs but never results (a failed tool never
becomes a number): finish_run refuses it, and a CHECK constraint backs that up."""
from __future__ import annotations

import errno
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import TengigError, ValidationError
from . import run_locks
from .fix_link import fix_link
from .export import compare_runs, runs_to_csv, runs_to_json
from .markdown import run_to_markdown
from .models import FINAL_STATUSES, RUN_KINDS, RUN_STATUSES, Environment, RawOutput, RunRecord
from .fix_rows import FixRows
from .reading import deeper_than_stored, read_run, shown_from_store
from .schema import MIGRATIONS, SCHEMA_VERSION

DEFAULT_DB_PATH = Path("/var/lib/tengig/results.sqlite3")
DB_ENV_VAR = "TENGIG_DB"
BUSY_TIMEOUT_S = 30.0
TARGET_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")  # the same as verdict.models.Target.name


def default_db_path() -> Path:
    """$TENGIG_DB if set, else /var/lib/tengig/results.sqlite3."""
    return Path(os.environ.get(DB_ENV_VAR) or DEFAULT_DB_PATH)


class ResultStore(FixRows):
    """The results database at ``path`` (default: $TENGIG_DB or /var/lib/tengig/results.sqlite3),
    created and migrated on open. Safe to share between threads and processes."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, path_option: str | None = None):
        """``path_option``: the command-line option that named ``path`` (e.g. '--db'), for the errors to name
        instead of $TENGIG_DB."""
        self.path = Path(path) if path is not None else default_db_path()
        self._elsewhere = (f"give {path_option} another file path" if path_option
                           else f"set {DB_ENV_VAR} to a writable file path")
        try:
            # Private: the history names hosts, shares and pools; nobody else needs to read it.
            if not self.path.parent.exists():
                self.path.parent.mkdir(mode=0o700, parents=True)
            fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
            try:
                if os.fstat(fd).st_uid == os.geteuid():
                    os.fchmod(fd, 0o600)  # a file made before tengig kept it private
            finally:
                os.close(fd)
        except OSError as exc:
            raise TengigError(
                f"cannot create {self.path.parent} for the results database ({exc.strerror}); {self._elsewhere}",
                errno=exc.errno,
            ) from exc
        self._migrate()

    # -- runs ---------------------------------------------------------------------------------

    def start_run(self, kind: str, inputs: Mapping[str, Any] | BaseModel, environment: Environment | None) -> int:
        """Record a run as 'running' and return its id."""
        if kind not in RUN_KINDS:
            raise ValidationError.one("kind", f"{kind!r} is not a run kind; use one of {', '.join(RUN_KINDS)}")
        env = _dump(environment, "environment") if environment is not None else None
        with self._connect(write=True) as conn:
            cur = conn.execute(
                "INSERT INTO runs (started, kind, status, inputs, environment) VALUES (?, ?, 'running', ?, ?)",
                (time.time(), kind, _dump_object(inputs, "inputs"), env),
            )
            run_id = int(cur.lastrowid)
            run_locks.hold(self.path, run_id)  # in the transaction: no one sees it running and unlocked
            return run_id

    def add_raw(self, run_id: int, raw: RawOutput) -> None:
        """Keep one tool invocation's exact output with its run (also for runs that fail)."""
        self.add_raws(run_id, [raw])

    def add_raws(self, run_id: int, raws: Sequence[RawOutput]) -> None:
        """Keep a run's tool invocations, in order, in one transaction (one sync to disk, not one per tool)."""
        with self._connect(write=True) as conn:
            self._require_run(conn, run_id)
            conn.executemany(
                "INSERT INTO raw_outputs (run_id, tool, argv, exit_code, stdout, stderr, started, seconds)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, raw.tool, json.dumps(raw.argv), raw.exit_code, raw.stdout, raw.stderr, raw.started,
                  raw.seconds) for raw in raws],
            )

    def finish_run(
        self,
        run_id: int,
        status: str,
        results: Mapping[str, Any] | BaseModel | None = None,
        verdict: Mapping[str, Any] | BaseModel | None = None,
        error: str | None = None,
    ) -> RunRecord:
        """Close a running run. success needs results and no error; failed needs an error and takes
        no results or verdict; aborted takes no results or verdict either."""
        if status not in FINAL_STATUSES:
            raise ValidationError.one(
                "status", f"{status!r} cannot finish a run; use one of {', '.join(FINAL_STATUSES)}"
            )
        problems: list[tuple[str, str]] = []
        if status == "success":
            if results is None:
                problems.append(("results", "a successful run needs its results"))
            if error:
                problems.append(("error", "a successful run has no error; finish it as 'failed' instead"))
        else:
            if results is not None:
                problems.append(("results", f"a {status} run keeps its error and raw outputs but no results: "
                                            "a failed tool never becomes a number"))
            if verdict is not None:
                problems.append(("verdict", f"a {status} run has no verdict (it has no results)"))
            if status == "failed" and not error:
                problems.append(("error", "a failed run must say why it failed"))
        if problems:
            raise ValidationError(problems)
        if status == "aborted" and not error:
            error = "aborted before it finished"
        res = _dump_object(results, "results") if results is not None else None
        ver = _dump_object(verdict, "verdict") if verdict is not None else None
        with self._connect(write=True) as conn:
            current = self._require_run(conn, run_id)
            if current != "running":
                raise TengigError(
                    f"run {run_id} already finished ({current}); a run is finished once", errno=errno.EINVAL
                )
            conn.execute(
                "UPDATE runs SET status = ?, finished = ?, results = ?, verdict = ?, error = ? WHERE id = ?",
                (status, time.time(), res, ver, error, run_id),
            )
        run_locks.release(self.path, run_id)
        return self.get(run_id)

    def abort_orphaned_runs(self) -> list[int]:
        """Mark 'aborted' every run left 'running' by a process that died (killed mid-way); their ids."""
        with self._connect(write=True) as conn:
            running = [int(r[0]) for r in conn.execute("SELECT id FROM runs WHERE status = 'running'").fetchall()]
            orphans = [run_id for run_id in running if run_locks.orphaned(self.path, run_id)]
            for run_id in orphans:
                conn.execute("UPDATE runs SET status = 'aborted', finished = ?, error = ? WHERE id = ?",
                             (time.time(), "aborted: the process running it ended before it finished", run_id))
        for run_id in orphans:
            run_locks.release(self.path, run_id)
        return orphans

    def get(self, run_id: int) -> RunRecord:
        """The run with all its raw outputs. Raises TengigError(ENOENT) if there is none."""
        with self._connect(write=False) as conn:
            return self._load(conn, [run_id], include_raw=True)[0]

    def query(
        self,
        kind: str | None = None,
        status: str | None = None,
        limit: int = 50,
        offset: int = 0,
        include_raw: bool = False,
    ) -> list[RunRecord]:
        """Runs newest first, optionally of one kind and/or status. Raw outputs only if include_raw."""
        problems: list[tuple[str, str]] = []
        if kind is not None and kind not in RUN_KINDS:
            problems.append(("kind", f"{kind!r} is not a run kind; use one of {', '.join(RUN_KINDS)}"))
        if status is not None and status not in RUN_STATUSES:
            problems.append(("status", f"{status!r} is not a run status; use one of {', '.join(RUN_STATUSES)}"))
        if not 1 <= limit <= 1000:
            problems.append(("limit", f"{limit} is outside 1..1000"))
        if offset < 0:
            problems.append(("offset", f"{offset} is negative"))
        if problems:
            raise ValidationError(problems)
        where, args = [], []
        for column, value in (("kind", kind), ("status", status)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT * FROM runs" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY started DESC, id DESC LIMIT ? OFFSET ?"
        with self._connect(write=False) as conn:
            rows = conn.execute(sql, (*args, limit, offset)).fetchall()
            return self._records(conn, rows, include_raw)

    def delete(self, run_id: int) -> None:
        """Remove a run and (by cascade) its raw outputs. A run still running is refused (EBUSY): its
        process is writing to it."""
        with self._connect(write=True) as conn:
            if self._require_run(conn, run_id) == "running" and not run_locks.orphaned(self.path, run_id):
                raise TengigError(f"run {run_id} is still running; stop it first (or wait for it to finish)",
                                  errno=errno.EBUSY)
            conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    # -- comparing and exporting ----------------------------------------------------------------

    def compare(self, a: int, b: int) -> dict[str, Any]:
        """Run b against run a (see export.compare_runs): metrics in both with delta and
        delta_percent, metrics only one has, and environment values that differ."""
        with self._connect(write=False) as conn:
            ra, rb = self._load(conn, [a, b], include_raw=False)
        with shown_from_store(self.path, [a, b]):
            comparison = compare_runs(ra, rb)
        return {**comparison, "fix": fix_link(self.fixes(a), a, b)}

    def export_json(self, run_ids: Sequence[int] | None = None) -> str:
        """Runs (all, newest first, or the given ids in order) with raw outputs, as one JSON document."""
        return runs_to_json(self._export_runs(run_ids), exported=time.time())

    def export_csv(self, run_ids: Sequence[int] | None = None) -> str:
        """One row per (run, metric path, value); a run without results is one 'error' row."""
        return runs_to_csv(self._export_runs(run_ids))

    def export_markdown(self, run_id: int) -> str:
        """One run as a Markdown report (markdown.run_to_markdown): to paste where people help."""
        run = self.get(run_id)
        with shown_from_store(self.path, [run_id]):
            return run_to_markdown(run)

    # -- user targets ---------------------------------------------------------------------------

    def user_targets(self) -> list[dict[str, Any]]:
        """The user's own targets (each a dict with 'name'), by name."""
        with self._connect(write=False) as conn:
            return [json.loads(r["data"]) for r in conn.execute("SELECT data FROM targets ORDER BY name")]

    def add_user_target(self, name: str, data: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
        """Store a target under a new name; a name already taken is refused (EEXIST)."""
        if not isinstance(name, str) or not TARGET_NAME_RE.fullmatch(name):
            raise ValidationError.one("name", f"{name!r} is not a target name (allowed: {TARGET_NAME_RE.pattern})")
        doc = json.loads(_dump_object(data, "data"))
        if doc.get("name", name) != name:
            raise ValidationError.one("data.name", f"{doc['name']!r} differs from the name {name!r}")
        doc["name"] = name
        with self._connect(write=True) as conn:
            try:
                conn.execute(
                    "INSERT INTO targets (name, data, created) VALUES (?, ?, ?)", (name, json.dumps(doc), time.time())
                )
            except sqlite3.IntegrityError as exc:
                clash = ValidationError.one(
                    "name", f"a target named {name!r} already exists; delete it first or choose another name"
                )
                clash.errno = errno.EEXIST
                raise clash from exc
        return doc

    def delete_user_target(self, name: str) -> None:
        with self._connect(write=True) as conn:
            if conn.execute("DELETE FROM targets WHERE name = ?", (name,)).rowcount == 0:
                raise TengigError(f"target {name!r} not found", errno=errno.ENOENT)

    # -- internals -----------------------------------------------------------------------------

    def _dump_data(self, data: Mapping[str, Any]) -> str:
        return _dump_object(data, "data")

    @contextmanager
    def _connect(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One connection, one transaction; sqlite3 errors become TengigError here and nowhere else."""
        conn = self._open()
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # an error may already have rolled it back
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise TengigError(f"results database {self.path}: {exc}") from exc
        finally:
            conn.close()

    def _open(self) -> sqlite3.Connection:
        try:
            return sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise TengigError(
                f"cannot open the results database {self.path}: {exc}; {self._elsewhere}"
            ) from exc

    def _migrate(self) -> None:
        conn = self._open()
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]  # persistent: set once per file
        except sqlite3.Error as exc:
            raise TengigError(
                f"cannot open the results database {self.path}: {exc}; {self._elsewhere}"
            ) from exc
        finally:
            conn.close()
        if str(mode).lower() != "wal":
            raise TengigError(
                f"the results database {self.path} cannot use WAL (journal mode {mode}); put it on a local filesystem"
            )
        with self._connect(write=True) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise TengigError(
                    f"the results database {self.path} has schema {version}, newer than this tengig knows "
                    f"({SCHEMA_VERSION}); upgrade tengig or {self._elsewhere}"
                )
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[target - 1]:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_history (version, applied) VALUES (?, ?)", (target, time.time()))
                conn.execute(f"PRAGMA user_version = {int(target)}")

    @staticmethod
    def _require_run(conn: sqlite3.Connection, run_id: int) -> str:
        row = conn.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise TengigError(f"run {run_id} not found", errno=errno.ENOENT)
        return str(row["status"])

    def _load(self, conn: sqlite3.Connection, run_ids: Sequence[int], *, include_raw: bool) -> list[RunRecord]:
        """The given runs in the given order; the first missing one raises ENOENT."""
        rows = []
        for run_id in run_ids:
            row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise TengigError(f"run {run_id} not found", errno=errno.ENOENT)
            rows.append(row)
        return self._records(conn, rows, include_raw)

    def _records(self, conn: sqlite3.Connection, rows: Sequence[sqlite3.Row], include_raw: bool) -> list[RunRecord]:
        raw: dict[int, list[sqlite3.Row]] = {}
        if include_raw and rows:
            ids = sorted({int(r["id"]) for r in rows})
            marks = ", ".join("?" * len(ids))
            for r in conn.execute(f"SELECT * FROM raw_outputs WHERE run_id IN ({marks}) ORDER BY id", ids):
                raw.setdefault(int(r["run_id"]), []).append(r)
        return [read_run(self.path, r, raw.get(int(r["id"]), [])) for r in rows]

    def _export_runs(self, run_ids: Sequence[int] | None) -> list[RunRecord]:
        with self._connect(write=False) as conn:
            if run_ids is None:
                rows = conn.execute("SELECT * FROM runs ORDER BY started DESC, id DESC").fetchall()
                return self._records(conn, rows, include_raw=True)
            return self._load(conn, list(run_ids), include_raw=True)


def _dump(value: BaseModel, field: str) -> str:
    return _dump_json(value.model_dump(mode="json"), field)


def _dump_object(value: Mapping[str, Any] | BaseModel, field: str) -> str:
    if isinstance(value, BaseModel):
        return _dump(value, field)
    if not isinstance(value, Mapping):
        raise ValidationError.one(field, f"must be a JSON object (a dict), got {type(value).__name__}")
    return _dump_json(dict(value), field)


def _dump_json(value: Any, field: str) -> str:
    deep = deeper_than_stored(value)
    if deep:
        raise ValidationError.one(field, f"cannot be stored: it {deep} (a run's figures are far flatter)")
    try:
        return json.dumps(value, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ValidationError.one(
            field, f"cannot be stored as JSON ({exc}); NaN and infinity are not measurements"
        ) from exc


