"""The results database's schema, as migrations. PRAGMA user_version is the schema version and
MIGRATIONS[i] takes a database from version i to i + 1; a new version appends a tuple, never edits
an old one. schema_history records when each version was applied (for people, not for logic)."""
from __future__ import annotations

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 0 -> 1
        "CREATE TABLE schema_history (version INTEGER PRIMARY KEY, applied REAL NOT NULL)",
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started REAL NOT NULL,
            finished REAL,
            kind TEXT NOT NULL CHECK (kind IN ('pool', 'net', 'smb', 'all')),
            status TEXT NOT NULL CHECK (status IN ('running', 'success', 'failed', 'aborted')),
            inputs TEXT NOT NULL,
            results TEXT CHECK (results IS NULL OR status = 'success'),
            verdict TEXT,
            error TEXT,
            environment TEXT
        )""",
        "CREATE INDEX runs_newest ON runs (started DESC, id DESC)",
        "CREATE INDEX runs_kind_status ON runs (kind, status)",
        """CREATE TABLE raw_outputs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            tool TEXT NOT NULL,
            argv TEXT NOT NULL,
            exit_code INTEGER,
            stdout TEXT NOT NULL,
            stderr TEXT NOT NULL,
            started REAL NOT NULL,
            seconds REAL NOT NULL
        )""",
        "CREATE INDEX raw_outputs_run ON raw_outputs (run_id, id)",
        "CREATE TABLE targets (name TEXT PRIMARY KEY, data TEXT NOT NULL, created REAL NOT NULL)",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
