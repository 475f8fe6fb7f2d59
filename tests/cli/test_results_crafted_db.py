"""`tengig results` on a results database changed outside tengig or crafted (a copy of tests/fixtures/results
with one column of run 2 rewritten): text that is not JSON, nesting deeper than any run's, NaN, a start
time of 1e300, a kind tengig does not know, figures of a shape tengig never stores. Every command that
reads the bad run says so in one line naming the database, the run and what is wrong, exits non-zero,
prints nothing on stdout and no traceback (nor does the API it hosts log one); the database is unchanged."""
from __future__ import annotations

import json
import logging
import shutil
import sqlite3

import pytest

from tengig.cli.main import main

from .test_results_command import FIXTURES, state

DEEP = "[" * 100_000 + "]" * 100_000  # deeper than Python's parser goes
NESTED = '{"a": ' + "[" * 500 + "]" * 500 + "}"  # parsed, but deeper than any run tengig stores

LIST, SHOW = ["list"], ["show", "2"]
READERS = (LIST, SHOW, ["show", "2", "--json"], ["show", "2", "--csv"], ["export"], ["export", "--format", "csv"],
           ["export", "2", "--format", "md"], ["compare", "1", "2"])
WITH_RAW = tuple(c for c in READERS if c not in (LIST, ["compare", "1", "2"]))  # those that read raw outputs

CASES = {  # name: (SQL on run 2, its parameters, the commands that must refuse, what the line says)
    "results not JSON": ("UPDATE runs SET results = '{not json' WHERE id = 2", (), READERS,
                         "its results is not JSON (Expecting property name"),
    "results too deep to parse": ("UPDATE runs SET results = ? WHERE id = 2", (DEEP,), READERS,
                                  "its results nests more than 64 levels"),
    "inputs nested deeper than stored": ("UPDATE runs SET inputs = ? WHERE id = 2", (NESTED,), READERS,
                                         "its inputs nests more than 64 levels"),
    "NaN in the verdict": ("UPDATE runs SET verdict = '{\"x\": NaN}' WHERE id = 2", (), READERS,
                           "its verdict holds NaN"),
    "results a JSON list": ("UPDATE runs SET results = '[1, 2]' WHERE id = 2", (), READERS,
                            "its results: Input should be a valid dictionary"),
    "results bytes not UTF-8": ("UPDATE runs SET results = X'7bff7d' WHERE id = 2", (), READERS,
                                "its results is not JSON ('utf-8' codec can't decode"),
    "started 1e300": ("UPDATE runs SET started = 1e300 WHERE id = 2", (), READERS,
                      "its started is 1e+300, not a time a calendar can show"),
    "finished -1e20": ("UPDATE runs SET finished = -1e20 WHERE id = 2", (), READERS,
                       "its finished is -1e+20, not a time a calendar can show"),
    "started a word": ("UPDATE runs SET started = 'yesterday' WHERE id = 2", (), READERS,
                       "its started is str 'yesterday', not epoch seconds"),
    "a kind tengig does not know": ("UPDATE runs SET kind = 'evil' WHERE id = 2", (), READERS,
                                    "its kind: Input should be 'pool'"),
    "environment not JSON": ("UPDATE runs SET environment = '{bad' WHERE id = 2", (), READERS,
                             "its environment is not JSON"),
    "environment of another shape": ("UPDATE runs SET environment = '{\"nics\": [5]}' WHERE id = 2", (), READERS,
                                     "its environment (nics.0): Input should be a valid dictionary"),
    "a raw output's argv not JSON": ("UPDATE raw_outputs SET argv = 'nope' WHERE run_id = 2", (), WITH_RAW,
                                     "its raw output 1's argv is not JSON"),
    "a raw output's stdout not UTF-8": ("UPDATE raw_outputs SET stdout = X'41ff' WHERE run_id = 2", (), WITH_RAW,
                                        "its raw output 1 (stdout): "),
    "a verdict that is a string": ("UPDATE runs SET results = ? WHERE id = 2",
                                   (json.dumps({"aggregate_verdict": "x", "clients": 5}),),
                                   (LIST, ["export", "2", "--format", "md"], ["compare", "1", "2"]),
                                   "its figures are not of the shape tengig stores ("),
    "a direction that is a number": ("UPDATE runs SET results = ? WHERE id = 2",
                                     (json.dumps({"aggregate_verdict": {"directions": [1]}}),), (LIST,),
                                     "its figures are not of the shape tengig stores (AttributeError"),
    "a margin that is a word": ("UPDATE runs SET results = '{}', verdict = ? WHERE id = 2",
                                (json.dumps({"directions": [{"direction": "read", "beats_target": True,
                                                             "margin_percent": "x"}]}),), (LIST,),
                                "its figures are not of the shape tengig stores (TypeError"),
    "a client that is a number": ("UPDATE runs SET results = ? WHERE id = 2",
                                  (json.dumps({"clients": [5], "smb_concurrent": 7}),),
                                  (["export", "2", "--format", "md"],),
                                  "its figures are not of the shape tengig stores (AttributeError"),
}


def crafted(tmp_path, sql: str, params: tuple):
    db = tmp_path / "db" / "results.sqlite3"
    db.parent.mkdir()
    shutil.copy(FIXTURES / "lab-runs.sqlite3", db)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")  # a crafted file need not keep tengig's CHECKs
        conn.execute(sql, params)
    conn.close()
    return db


@pytest.mark.abuse
@pytest.mark.parametrize("case", CASES)
def test_a_crafted_database_is_one_line_naming_it_and_no_traceback(capsys, caplog, tmp_path, case):
    sql, params, refusing, says = CASES[case]
    db = crafted(tmp_path, sql, params)
    before = state(db.parent)
    caplog.set_level(logging.ERROR)
    for args in refusing:
        code = main(["results", *args, "--db", str(db)])
        out, err = capsys.readouterr()
        assert code == 1 and out == "", (args, out[:300], err[-600:])
        assert err.count("\n") == 1 and "Traceback" not in err, (args, err[-600:])
        assert err.startswith(f"error: results database {db}: run "), (args, err)
        assert says in err and "`tengig results delete 2` removes that run" in err, (args, err)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]
    assert state(db.parent) == before


@pytest.mark.abuse
def test_the_other_runs_of_a_crafted_database_still_read_and_the_bad_one_deletes(capsys, tmp_path):
    db = crafted(tmp_path, "UPDATE runs SET results = '{not json' WHERE id = 2", ())
    for args in (["show", "1"], ["export", "1", "--format", "md"], ["export", "1", "--format", "csv"]):
        assert main(["results", *args, "--db", str(db)]) == 0, args
    capsys.readouterr()
    assert main(["results", "delete", "2", "--db", str(db)]) == 0
    code = main(["results", "list", "--json", "--db", str(db)])
    out, _ = capsys.readouterr()
    assert code == 0 and [r["id"] for r in json.loads(out)] == [1]
