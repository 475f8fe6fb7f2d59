"""`tengig fix RUN [FIX]` and `tengig fix undo RUN` on a copy of the recorded results database: the plan with
the advice that stays words, a declined confirmation that changes nothing, refusals in the command's words."""
from __future__ import annotations

import io
import shutil

import pytest

from tengig.cli.main import main
from tengig.results import ResultStore

from .recorded import FIXTURE, altered


@pytest.fixture
def db(tmp_path):
    copy = tmp_path / "results.sqlite3"
    shutil.copy(FIXTURE, copy)
    return copy


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_run_without_a_fix_shows_its_advice_staying_words(capsys, db):
    code, out, err = run(capsys, "fix", "2", "--db", str(db))
    assert code == 0 and err == ""
    assert out.splitlines() == ["run 2: 0 fix(es) answer its advice",
                                "  stays advice: link-below-target (lab): a faster link or more ports: hardware",
                                "  stays advice: link-below-target (desk): a faster link or more ports: hardware"]


def test_a_declined_confirmation_changes_nothing(capsys, db, monkeypatch):
    # a run measured on system lab: the plan shows without reading this machine's settings (its smbd may be
    # anyone's), and an apply would be refused anyway
    store = ResultStore(db)
    run_ = altered(store.get(2), encryption=True, smb_scale=0.4)
    run_id = store.start_run(run_.kind, run_.inputs, run_.environment)
    store.finish_run(run_id, "success", results={**run_.results, "system": "lab"})
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out, err = run(capsys, "fix", str(run_id), "--db", str(db))
    assert code == 0
    assert out.splitlines()[0] == f"run {run_id}: 1 fix(es) answer its advice"
    assert "  smb-encryption (desk's smb-encryption): server smb encrypt of smb.conf [global]" in out
    assert "    predicted: read 43.96 MB/s -> 117.7 MB/s, write 42.77 MB/s -> 117.6 MB/s" in out
    assert "apply smb-encryption: server smb encrypt of smb.conf [global] -> if_required? [y/N]" in err
    assert err.rstrip().endswith("nothing changed")
    assert store.fixes() == []


def test_a_fix_the_run_does_not_have_is_refused_in_the_command_s_words(capsys, db):
    code, _, err = run(capsys, "fix", "2", "mtu", "--yes", "--db", str(db))
    assert code == 2 and err == "error: FIX: run 2 has no fix named 'mtu' (its fixes: none)\n"


def test_an_older_run_is_refused_naming_the_newer_one(capsys, db):
    code, _, err = run(capsys, "fix", "1", "x", "--yes", "--db", str(db))
    assert code == 2
    assert err == ("error: RUN: run 1 is not the newest on this NAS: run 2 measured it since; fix from that run's "
                   "verdict (`tengig fix 2`)\n")


def test_undo_without_a_kept_fix_says_so(capsys, db):
    code, _, err = run(capsys, "fix", "undo", "2", "--db", str(db))
    assert code == 1 and "run 2 has no kept fix to undo" in err


def test_results_compare_opens_with_the_fix_that_links_the_two_runs(capsys, db):
    from tengig.fix.apply import apply_fix

    from .test_apply import ENCRYPT, FakeSettings, _remeasure, _stored

    store = ResultStore(db)
    before = _stored(store, altered(store.get(2), encryption=True, smb_scale=0.4))
    out = apply_fix(store, FakeSettings({ENCRYPT: "required"}), _remeasure(store, before, 2.5), before.id, None,
                    confirm=True)
    code, text, err = run(capsys, "results", "compare", str(before.id), str(out.after_run_id), "--db", str(db))
    assert code == 0, err
    lines = text.splitlines()
    assert lines[2] == (f"Run {out.after_run_id} measured SMB again after fix {out.fix_id} (smb-encryption) of run "
                        f"{before.id}: server smb encrypt of smb.conf [global] required -> if_required, kept")
    assert lines[3] == ("  read: 44.0 MB/s before, predicted 117.7 MB/s (link), measured 109.9 MB/s (-6.6% off the "
                        "prediction)")
