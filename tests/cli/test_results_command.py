"""`tengig results list|show|compare|export|delete` on a database of real lab runs (tests/fixtures/results,
recorded by scripts/record_results_fixture.py: run 1 with lab's cable at 100 Mb/s, run 2 with both desktops
at 1 Gb/s, each `tengig bench all` with desk and lab joined). Bad input, a missing run, a corrupt database
and an unwritable output file each get one line naming what to give, and change nothing."""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tengig.cli.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "results"
SECRETS = ("hunter2-share-password", "tok-8d1f0c6a9e", "apikey-77c2b1d4", "smbpw-Zq93")


@pytest.fixture
def db(tmp_path):
    copy = tmp_path / "db" / "results.sqlite3"
    copy.parent.mkdir()
    shutil.copy(FIXTURES / "lab-runs.sqlite3", copy)
    return copy


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def state(directory: Path) -> dict[str, str]:
    """Every file in the directory by name, with a hash of its bytes: 'nothing changed' is this, equal."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir()) if p.is_file()}


def test_list_is_one_line_per_run_with_units(capsys, db):
    code, out, _ = run(capsys, "results", "list", "--db", str(db))
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3, out
    assert lines[0].split() [:4] == ["RUN", "STARTED", "(UTC)", "KIND"] and "SMB READ" in lines[0]
    assert lines[1].startswith("2 ") and "136.9 MB/s" in lines[1] and "read loses by 38.7%" in lines[1]
    assert lines[2].startswith("1 ") and "23.18 MB/s" in lines[2] and "read loses by 89.6%" in lines[2]
    code, out, _ = run(capsys, "results", "list", "--db", str(db), "--json")
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [2, 1] and rows[0]["smb_read_bytes_per_s"] == pytest.approx(136.9e6, rel=1e-3)
    assert rows[0]["clients"] == 2 and rows[0]["bottleneck"] == "smb/link"
    code, out, _ = run(capsys, "results", "list", "--db", str(db), "--csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert [r["id"] for r in table] == ["2", "1"] and float(table[1]["smb_write_bytes_per_s"]) == pytest.approx(23.13e6, rel=1e-3)


def test_show_prints_the_report_as_the_run_printed_it(capsys, db):
    code, out, _ = run(capsys, "results", "show", "2", "--db", str(db))
    assert code == 0
    assert out == (FIXTURES / "run-2-as-printed.txt").read_text()


def test_compare_says_which_ceiling_moved(capsys, db):
    code, out, _ = run(capsys, "results", "compare", "1", "2", "--db", str(db))
    assert code == 0
    assert out.startswith("run 2 (") and "against run 1 (" in out.splitlines()[0]
    assert "  aggregate read: link 129.5 -> 235.4 MB/s (+81.8%)\n" in out  # the second 1 Gb/s port
    assert "  lab read: link 11.77 -> 117.7 MB/s (+900.0%), the bottleneck in both\n" in out  # lab's cable
    assert "  aggregate write: link 129.5 -> 235.4 MB/s (+81.8%), the bottleneck in b only\n" in out
    assert not any(line.startswith("  desk read: link") for line in out.splitlines())  # 1 Gb/s in both
    figure = next(line for line in out.splitlines() if line.startswith("smb_concurrent.read.aggregate.median "))
    assert figure.split()[1:] == ["23.18", "MB/s", "136.9", "MB/s", "+490.7%"]
    code, out, _ = run(capsys, "results", "compare", "1", "2", "--db", str(db), "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    moved = {r["name"] for r in rows if r["section"] == "ceiling (moved)"}
    assert "lab read link" in moved and "desk read link" not in moved
    code, out, _ = run(capsys, "results", "compare", "1", "2", "--db", str(db), "--json")
    assert json.loads(out)["metrics"]["smb_concurrent.read.aggregate.median"]["unit"] == "B/s"


def _markdown_tables(text: str) -> list[list[list[str]]]:
    """Each table as markdown-it parses it: rows of cell texts (head row first)."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables, rows, cells, inside = [], [], [], False
    for t in tokens:
        if t.type == "table_open":
            rows = []
        elif t.type == "tr_open":
            cells = []
        elif t.type in ("th_open", "td_open"):
            inside = True
        elif t.type == "inline" and inside:
            cells.append(t.content)
            inside = False
        elif t.type == "tr_close":
            rows.append(cells)
        elif t.type == "table_close":
            tables.append(rows)
    return tables


def _plant_secrets(db: Path, run_id: int) -> None:
    """What a run could hold that must never be shared: a share password and a join token in its inputs and
    a desktop's answer, an API key and passwords in a tool's argv, and a tool that echoed a secret."""
    conn = sqlite3.connect(db)
    with conn:
        inputs = json.loads(conn.execute("SELECT inputs FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
        inputs.update({"share_password": SECRETS[0], "token": SECRETS[1]})
        results = json.loads(conn.execute("SELECT results FROM runs WHERE id = ?", (run_id,)).fetchone()[0])
        results["clients"][0]["joined"]["token"] = SECRETS[1]
        conn.execute("UPDATE runs SET inputs = ?, results = ? WHERE id = ?",
                     (json.dumps(inputs), json.dumps(results), run_id))
        for argv, out in ((["tengig", "client", "join", "ws://nas:8610", "--token", SECRETS[1], "-K", SECRETS[2]],
                           f"joined with token {SECRETS[1]}"),
                          (["smbclient", "//nas/share", "-U", f"tgsmb%{SECRETS[3]}", "-c", "ls"],
                           f"password={SECRETS[0]} accepted")):
            conn.execute("INSERT INTO raw_outputs (run_id, tool, argv, exit_code, stdout, stderr, started, seconds)"
                         " VALUES (?, ?, ?, 0, ?, '', 0, 0)", (run_id, argv[0], json.dumps(argv), out))
    conn.close()


def test_markdown_of_a_joined_two_client_run_renders_and_holds_no_secret(capsys, db, tmp_path):
    _plant_secrets(db, 2)
    out_file = tmp_path / "run-2.md"
    code, _, err = run(capsys, "results", "export", "2", "--format", "md", "-o", str(out_file), "--db", str(db))
    assert code == 0 and f"wrote {out_file}" in err
    text = out_file.read_text()
    tables = _markdown_tables(text)
    heads = [t[0] for t in tables]
    chain = ["direction", "pool", "link", "network", "SMB", "target", "result", "bottleneck"]
    assert heads.count(chain) == 3  # the aggregate verdict and each client's
    aggregate = tables[heads.index(chain)]
    assert aggregate[1][:3] == ["read", "300.4 MB/s", "235.4 MB/s (est)"] and aggregate[1][6] == "loses by 38.7%"
    assert ["direction", "aggregate", "runs", "lab", "desk"] in heads
    assert ["tool", "version"] in heads and ["NIC", "speed", "MTU", "driver"] in heads
    assert all(len(row) == len(t[0]) for t in tables for row in t)  # no cell split a row
    assert "**Verdict (all clients at once):** read loses by 38.7% (bottleneck smb)" in text
    assert "## Client desk" in text and "## Client lab" in text and "dialect SMB3_11" in text
    assert ["fio", "fio-3.33"] in tables[heads.index(["tool", "version"])]
    exports = {"md": text}
    for fmt in ("json", "csv"):
        code, exports[fmt], _ = run(capsys, "results", "export", "2", "--format", fmt, "--db", str(db))
        assert code == 0
    assert "(redacted)" in exports["json"] and "tgsmb%(redacted)" in exports["json"]
    for fmt, body in exports.items():
        for secret in SECRETS:
            assert secret not in body, (fmt, secret)


def test_a_missing_run_is_one_line_and_changes_nothing(capsys, db):
    before = state(db.parent)
    for args in (["show", "99"], ["compare", "1", "99"], ["export", "99", "--format", "md"], ["delete", "99"]):
        code, out, err = run(capsys, "results", *args, "--db", str(db))
        assert code == 1 and out == "", args
        assert err == f"error: run 99 not found in {db} (`tengig results list` shows its runs)\n", (args, err)
    assert state(db.parent) == before


def test_a_corrupt_database_is_one_line_and_changes_nothing(capsys, tmp_path):
    bad = tmp_path / "bad" / "results.sqlite3"
    bad.parent.mkdir()
    bad.write_bytes(b"this is not SQLite\n" * 200)
    before = state(bad.parent)
    for args in (["list"], ["show", "1"], ["export", "--format", "csv"], ["delete", "1"]):
        code, out, err = run(capsys, "results", *args, "--db", str(bad))
        assert code == 1 and out == "", args
        assert err == (f"error: cannot open the results database {bad}: file is not a database; give --db another "
                       "file path\n"), err
    assert state(bad.parent) == before


def test_no_database_there_is_one_line_and_creates_none(capsys, tmp_path):
    missing = tmp_path / "none" / "results.sqlite3"
    code, out, err = run(capsys, "results", "list", "--db", str(missing))
    assert code == 1 and out == ""
    assert err == (f"error: no results database at {missing}: `tengig bench` records runs there, or give --db the "
                   "database's path\n")
    assert not missing.parent.exists()


def test_an_unwritable_output_is_one_line_and_writes_nothing(capsys, db, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    before = state(db.parent)
    try:
        for target, why in ((tmp_path / "no-such-dir" / "run.md", "No such file or directory"),
                            (locked / "run.md", "Permission denied" if os.geteuid() else None)):
            if why is None:
                continue  # root writes into a read-only directory: only the missing directory is tried
            code, out, err = run(capsys, "results", "export", "2", "--format", "md", "-o", str(target),
                                 "--db", str(db))
            assert code == 2 and out == ""
            assert err == (f"error: --output: cannot write {target} ({why}); give a file in a directory you can "
                           "write to\n"), err
            assert not target.parent.exists() or list(target.parent.iterdir()) == []
        over = tmp_path / "a-directory.md"
        over.mkdir()
        code, _, err = run(capsys, "results", "export", "2", "--format", "md", "-o", str(over), "--db", str(db))
        assert code == 2 and err.startswith(f"error: --output: cannot write {over} (") and err.count("\n") == 1, err
        assert list(over.iterdir()) == [] and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    finally:
        locked.chmod(0o700)
    assert state(db.parent) == before


def test_cli_words_name_cli_arguments(capsys, db):
    code, _, err = run(capsys, "results", "export", "1", "2", "--format", "md", "--db", str(db))
    assert code == 2 and err == "error: RUN: --format md is one run's report: give exactly one RUN (got 2)\n"
    code, _, err = run(capsys, "results", "list", "--json", "--csv", "--db", str(db))
    assert code == 2 and err == "error: --json: choose one of --json and --csv\n"


def test_delete_removes_the_run_and_its_raw_outputs(capsys, db):
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM raw_outputs WHERE run_id = 1").fetchone()[0] > 0
    conn.close()
    code, _, err = run(capsys, "results", "delete", "1", "--db", str(db))
    assert code == 0 and err == f"deleted run 1 and its raw tool outputs from {db}\n"
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM raw_outputs WHERE run_id = 1").fetchone()[0] == 0
    assert [r[0] for r in conn.execute("SELECT id FROM runs")] == [2]
    conn.close()
