"""The fixes table (results schema 3) on the recorded database, migrated from schema 2 on open: a fix links
its run and its re-measure; deleting the run takes its fixes, deleting the re-measure only unlinks it."""
from __future__ import annotations

import sqlite3

import pytest

from tengig.errors import TengigError, ValidationError
from tengig.results.schema import SCHEMA_VERSION

from .recorded import recorded_store


def test_a_fix_links_both_runs_and_follows_their_deletion(tmp_path):
    store = recorded_store(tmp_path)
    assert sqlite3.connect(store.path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    first = store.start_fix(1, "smb-encryption", {"previous": "required"})
    second = store.start_fix(2, "mtu", {"previous": "9000"})
    store.finish_fix(second, "kept", {"previous": "9000", "why": "a real gain"}, after_run_id=1)
    assert [f["id"] for f in store.fixes(1)] == [second, first]  # made from run 1, or measured by it
    store.delete(1)
    [left] = store.fixes()
    assert (left["id"], left["run_id"], left["after_run_id"], left["state"]) == (second, 2, None, "kept")
    store.delete(2)
    assert store.fixes() == []


def test_a_fix_of_a_missing_run_or_with_an_unknown_end_is_refused(tmp_path):
    store = recorded_store(tmp_path)
    with pytest.raises(TengigError, match="run 9 not found"):
        store.start_fix(9, "mtu", {})
    fix = store.start_fix(2, "mtu", {})
    with pytest.raises(ValidationError, match="'applying' ends no fix"):
        store.finish_fix(fix, "applying", {})
    with pytest.raises(TengigError, match="fix 99 not found"):
        store.finish_fix(99, "kept", {})
