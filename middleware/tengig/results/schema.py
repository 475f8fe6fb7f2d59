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
    (  # 1 -> 2: the smallfiles kind. SQLite cannot change a CHECK: both tables are rebuilt, the raw outputs
        # first (dropping runs would cascade into them), then renamed back (the reference follows the rename)
        """CREATE TABLE runs_2 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started REAL NOT NULL,
            finished REAL,
            kind TEXT NOT NULL CHECK (kind IN ('pool', 'net', 'smb', 'smallfiles', 'all')),
            status TEXT NOT NULL CHECK (status IN ('running', 'success', 'failed', 'aborted')),
            inputs TEXT NOT NULL,
            results TEXT CHECK (results IS NULL OR status = 'success'),
            verdict TEXT,
            error TEXT,
            environment TEXT
        )""",
        "INSERT INTO runs_2 SELECT * FROM runs",
        """CREATE TABLE raw_outputs_2 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id INTEGER NOT NULL REFERENCES runs_2 (id) ON DELETE CASCADE,
            tool TEXT NOT NULL,
            argv TEXT NOT NULL,
            exit_code INTEGER,
            stdout TEXT NOT NULL,
            stderr TEXT NOT NULL,
            started REAL NOT NULL,
            seconds REAL NOT NULL
        )""",
        "INSERT INTO raw_outputs_2 SELECT * FROM raw_outputs WHERE run_id IN (SELECT id FROM runs)",
        # ids are never reused: each new table goes on from where its old one's counter stood
        "DELETE FROM sqlite_sequence WHERE name IN ('runs_2', 'raw_outputs_2')",
        "INSERT INTO sqlite_sequence (name, seq) SELECT 'runs_2', seq FROM sqlite_sequence WHERE name = 'runs'",
        "INSERT INTO sqlite_sequence (name, seq) SELECT 'raw_outputs_2', seq FROM sqlite_sequence "
        "WHERE name = 'raw_outputs'",
        "DROP TABLE raw_outputs",
        "DROP TABLE runs",
        "ALTER TABLE runs_2 RENAME TO runs",
        "ALTER TABLE raw_outputs_2 RENAME TO raw_outputs",
        "CREATE INDEX runs_newest ON runs (started DESC, id DESC)",
        "CREATE INDEX runs_kind_status ON runs (kind, status)",
        "CREATE INDEX raw_outputs_run ON raw_outputs (run_id, id)",
    ),
    (  # 2 -> 3: fixes applied from a run's verdict (tengig/fix), each linking the run it came from and the run
        # that measured it again; the change, its previous value and the judgement are the JSON in data
        """CREATE TABLE fixes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            after_run_id INTEGER REFERENCES runs (id) ON DELETE SET NULL,
            name TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('applying', 'kept', 'rolled-back', 'undone', 'failed')),
            applied REAL NOT NULL,
            finished REAL,
            data TEXT NOT NULL
        )""",
        "CREATE INDEX fixes_run ON fixes (run_id, id)",
        "CREATE INDEX fixes_after_run ON fixes (after_run_id)",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
