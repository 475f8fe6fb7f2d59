"""tengig.results and tengig.targets through the host core (no server), on a real results database:
they delegate, and tengig's errors come out as API errors with argument-rooted field paths."""
from __future__ import annotations

import asyncio
import errno
import json

import pytest

from tengig.api import CallError, Registry, ValidationErrors
from tengig.api.host import Middleware
from tengig.results import ResultStore


@pytest.fixture
def call(tmp_path, monkeypatch):
    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "results.sqlite3"))
    store = ResultStore()
    first = store.start_run("smb", {"share": "//nas/share"}, None)
    store.finish_run(first, "success", results={"smb": {"read_bytes_per_s": 100e6}})
    second = store.start_run("smb", {"share": "//nas/share"}, None)
    store.finish_run(second, "success", results={"smb": {"read_bytes_per_s": 150e6}})
    failed = store.start_run("pool", {}, None)
    store.finish_run(failed, "failed", error="fio is not installed")
    loop = asyncio.new_event_loop()
    middleware = Middleware(Registry.default(), lambda *a: None)
    yield lambda name, *params: loop.run_until_complete(middleware.call(name, *params))
    loop.close()


def test_results_query_get_compare_export(call):
    runs = call("tengig.results.query", {"kind": "smb"})
    assert [r["id"] for r in runs] == [2, 1] and runs[0]["raw"] == []
    assert call("tengig.results.get", 3)["error"] == "fio is not installed"
    comparison = call("tengig.results.compare", 1, 2)
    assert comparison["metrics"]["smb.read_bytes_per_s"]["delta_percent"] == pytest.approx(50.0)
    assert json.loads(call("tengig.results.export", "json", [1]))["runs"][0]["id"] == 1
    assert call("tengig.results.export", "csv").splitlines()[0].startswith("run_id,")


def test_results_errors(call):
    with pytest.raises(CallError) as missing:
        call("tengig.results.get", 99)
    with pytest.raises(ValidationErrors) as no_results:
        call("tengig.results.compare", 1, 3)
    assert missing.value.errno == errno.ENOENT
    assert [e[0] for e in no_results.value] == ["b"]


def test_results_export_md_is_one_runs_report(call):
    text = call("tengig.results.export", "md", [1])
    assert text.startswith("# tengig bench smb") and "| smb.read_bytes_per_s | 1e+08 | B/s |" in text
    for ids, got in ((None, "none"), ([], "none"), ([1, 2], "2 (1, 2)")):
        with pytest.raises(ValidationErrors) as wrong:
            call("tengig.results.export", "md", ids)
        assert [(e[0], e[1]) for e in wrong.value] == [
            ("ids", f"format md is one run's report: give exactly one run id, got {got}")]
    with pytest.raises(CallError) as missing:
        call("tengig.results.export", "md", [99])
    assert missing.value.errno == errno.ENOENT


def test_results_delete_removes_the_run(call):
    assert call("tengig.results.delete", 2) is True
    assert [r["id"] for r in call("tengig.results.query")] == [3, 1]
    with pytest.raises(CallError) as again:
        call("tengig.results.delete", 2)
    assert again.value.errno == errno.ENOENT


def test_targets_create_query_delete(call):
    created = call("tengig.targets.create", {"name": "my-raid10", "title": "Old RAID 10",
                                             "read_bytes_per_s": 400e6, "source": "measured in 2019"})
    assert created["builtin"] is False
    assert [t["name"] for t in call("tengig.targets.query")][-1] == "my-raid10"
    with pytest.raises(ValidationErrors) as clash:
        call("tengig.targets.create", {"name": "my-raid10", "title": "x", "read_bytes_per_s": 1.0, "source": "y"})
    with pytest.raises(ValidationErrors) as builtin_name:
        call("tengig.targets.create", {"name": "hdd-15k-best", "title": "x", "read_bytes_per_s": 1.0, "source": "y"})
    with pytest.raises(ValidationErrors) as builtin_delete:
        call("tengig.targets.delete", "hdd-15k-best")
    assert [e[0] for e in clash.value] == ["target.name"] and [e[0] for e in builtin_name.value] == ["target.name"]
    assert [e[0] for e in builtin_delete.value] == ["name"]
    assert call("tengig.targets.delete", "my-raid10") is True
    with pytest.raises(CallError) as gone:
        call("tengig.targets.delete", "my-raid10")
    assert gone.value.errno == errno.ENOENT


def test_bench_kit_renders_the_windows_script_and_names_a_bad_field(call):
    token = "tgb-" + "0123456789abcdef" * 3
    kit = call("tengig.bench.kit", {"nas": "ws://10.20.0.1:8610", "token": token, "share": "tank"})
    assert kit["filename"] == "tengig-join.ps1" and "powershell" in kit["how"]
    assert kit["text"].count(token) == 1 and "ws://10.20.0.1:8610" in kit["text"]
    with pytest.raises(ValidationErrors) as bad:
        call("tengig.bench.kit", {"nas": "ws://10.20.0.1:8610", "token": token + "'; rm", "share": "tank"})
    assert bad.value.errors[0][0] == "request.token"


def test_desktops_join_local_runs_only(tmp_path, monkeypatch):
    """Desktops join runs of system local, on either host (tengig's own and the middlewared plugin serve
    the same tengig.bench.session.*; tests/realmw joins one through real middlewared)."""
    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "results.sqlite3"))
    loop = asyncio.new_event_loop()
    try:
        own = Middleware(Registry.default(), lambda *a: None)
        joins = {s["name"]: s["joins"] for s in loop.run_until_complete(own.call("tengig.bench.systems"))}
        assert joins == {"local": True, "truenas": False, "lab": False}
        assert "tengig.bench.session.join" in own.methods
    finally:
        loop.close()
