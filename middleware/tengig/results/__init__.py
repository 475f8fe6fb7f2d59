"""Results: the SQLite history of runs (inputs, raw tool outputs, environment fingerprint,
measurements, verdict), queries, comparison of two runs, and JSON/CSV export."""
from .environment import collect_environment, parse_arcstats
from .models import Environment, Nic, RawOutput, RunRecord
from .store import DEFAULT_DB_PATH, ResultStore, default_db_path

__all__ = [
    "DEFAULT_DB_PATH",
    "Environment",
    "Nic",
    "RawOutput",
    "ResultStore",
    "RunRecord",
    "collect_environment",
    "default_db_path",
    "parse_arcstats",
]
