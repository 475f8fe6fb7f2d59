"""What `tengig results` prints to a terminal holds no control character from a stored run: a desktop names
itself, a tool prints, a database is crafted, and ESC [ 2 J (clear the screen), an OSC title or OSC 8 link
would reach the admin's terminal. Every print site shows them escaped (\\x1b, \\x07); JSON escapes them by
its own rules; a file written with -o keeps the data as stored."""
from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from tengig.cli.main import main

from .test_results_command import FIXTURES

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;owned\x07"
LINK = "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"
CLIENT = f"lab{CLEAR}{TITLE}"  # a desktop's name as it joined
SYSTEM = f"local{CLEAR}"
ERROR = f"smbclient said: {LINK}{CLEAR}\rNT_STATUS_OK"  # a tool's output in a failed run's error


@pytest.fixture
def db(tmp_path):
    """The lab runs with a hostile client name and system in both, and a failed run 3 whose error is a
    tool's output with escapes in it."""
    copy = tmp_path / "db" / "results.sqlite3"
    copy.parent.mkdir()
    shutil.copy(FIXTURES / "lab-runs.sqlite3", copy)
    conn = sqlite3.connect(copy)
    with conn:
        for run_id, text in conn.execute("SELECT id, results FROM runs").fetchall():
            results = json.loads(text)
            results["system"] = SYSTEM
            for client in results["clients"]:
                client["client"] = CLIENT if client["client"] == "lab" else client["client"]
            conn.execute("UPDATE runs SET results = ? WHERE id = ?", (json.dumps(results), run_id))
        conn.execute("INSERT INTO runs (started, finished, kind, status, inputs, error) VALUES "
                     "(1700000000, 1700000060, 'smb', 'failed', '{}', ?)", (ERROR,))
    conn.close()
    return copy


def printed(capsys, *args) -> str:
    code = main(["results", *args])
    out, err = capsys.readouterr()
    assert code == 0, (args, err)
    return out


def assert_escaped(out: str, *shown: str) -> None:
    """No control character in ``out`` but line feeds, tabs and CSV's CR LF line ends; each of ``shown`` in it."""
    lines = out.replace("\r\n", "\n")
    controls = sorted({hex(ord(c)) for c in lines if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f})
    assert not controls, controls
    for text in shown:
        assert text in out, (text, out[:2000])


@pytest.mark.abuse
@pytest.mark.parametrize("args, shown", [pytest.param(*case, id=" ".join(case[0])) for case in [
    (["list"], ["\\x1b[2J", "\\x1b]8;;https://evil.example/\\x07click"]),
    (["list", "--csv"], ["local\\x1b[2J", "\\x1b]8;;https://evil.example/\\x07click"]),
    (["show", "2"], ["tengig bench all on local\\x1b[2J", "client lab\\x1b[2J\\x1b]0;owned\\x07 over"]),
    (["show", "3"], ["\\x1b]8;;https://evil.example/\\x07click", "\\x1b[2J\\x0dNT_STATUS_OK"]),
    (["show", "2", "--csv"], ["local\\x1b[2J", "lab\\x1b[2J\\x1b]0;owned\\x07"]),
    (["show", "3", "--csv"], ["\\x1b]8;;https://evil.example/\\x07click"]),
    (["compare", "1", "2"], ["lab\\x1b[2J\\x1b]0;owned\\x07 read: link"]),
    (["compare", "1", "2", "--csv"], ["lab\\x1b[2J\\x1b]0;owned\\x07 read link"]),
    (["export", "2", "--format", "md"], ["lab\\x1b\\[2J\\x1b\\]0;owned\\x07"]),
    (["export", "--format", "csv"], ["local\\x1b[2J", "\\x1b]8;;https://evil.example/\\x07click"]),
]])
def test_every_print_site_shows_a_stored_runs_escapes_escaped(capsys, db, args, shown):
    assert_escaped(printed(capsys, *args, "--db", str(db)), *shown)


@pytest.mark.abuse
@pytest.mark.parametrize("args, kept", [
    (["list", "--json"], lambda doc: doc[1]["system"] == SYSTEM),
    (["show", "2", "--json"], lambda doc: doc["results"]["system"] == SYSTEM),
    (["show", "3", "--json"], lambda doc: doc["error"] == ERROR),
    (["compare", "1", "2", "--json"], lambda doc: CLIENT in {c["scope"] for c in doc["ceilings"]}),
    (["export", "--format", "json"], lambda doc: doc["runs"][1]["results"]["system"] == SYSTEM),
])
def test_json_escapes_them_by_its_own_rules_and_keeps_the_data(capsys, db, args, kept):
    out = printed(capsys, *args, "--db", str(db))
    assert_escaped(out, "\\u001b")
    assert kept(json.loads(out))


@pytest.mark.abuse
@pytest.mark.parametrize("fmt, stored", [("md", "lab\x1b\\[2J\x1b\\]0;owned\x07"), ("csv", CLIENT), ("json", None)])
def test_a_file_written_with_output_keeps_the_data(capsys, db, tmp_path, fmt, stored):
    target = tmp_path / f"run-2.{fmt}"
    assert main(["results", "export", "2", "--format", fmt, "-o", str(target), "--db", str(db)]) == 0
    capsys.readouterr()
    text = target.read_text()
    if stored is None:
        assert json.loads(text)["runs"][0]["results"]["system"] == SYSTEM
    else:
        assert stored in text
