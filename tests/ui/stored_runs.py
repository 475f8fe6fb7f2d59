"""Recorded lab runs (the panel's own fixtures, ui/src/fixtures) put in a panel server's results database
($TENGIG_DB, set by the panel fixture), for browser tests that read History, a verdict or a comparison
without running a benchmark: desk alone over its 1 Gb/s link, desk and lab joined at once, a failed run."""
from __future__ import annotations

import json
from typing import Any

from tengig.results.models import Environment
from tengig.results.store import ResultStore

from .browser import ROOT

FIXTURES = ROOT / "ui" / "src" / "fixtures"


def _finished(store: ResultStore, kind: str, inputs: dict[str, Any], environment: dict[str, Any] | None,
              results: dict[str, Any], verdict: dict[str, Any] | None) -> int:
    env = Environment.model_validate(environment) if environment else None
    run_id = store.start_run(kind, inputs, env)
    store.finish_run(run_id, "success", results=results, verdict=verdict)
    return run_id


def store_recorded_runs() -> dict[str, int]:
    """The ids of the runs stored: single, joined, failed."""
    single = json.loads((FIXTURES / "run-lab-desk-1g.json").read_text())
    joined = json.loads((FIXTURES / "run-joined-desk-lab.json").read_text())
    store = ResultStore()
    ids = {
        "single": _finished(store, "all", single["inputs"], single["environment"], single["results"], single["verdict"]),
        "joined": _finished(store, "smb", {**single["inputs"], "kind": "smb", "join": 2}, single["environment"],
                            joined, joined["clients"][0]["verdict"]),
        "failed": store.start_run("smb", single["inputs"], None),
    }
    store.finish_run(ids["failed"], "failed", error="smbclient on desk: NT_STATUS_CONNECTION_REFUSED")
    return ids
