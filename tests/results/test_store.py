"""ResultStore on real SQLite files in tmp_path: round trip, the failed-run rule, cascade, queries,
compare arithmetic, exports, reopening after a crash, user targets."""
from __future__ import annotations

import csv
import errno
import io
import json
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tengig.errors import TengigError, ValidationError
from tengig.results import store as store_mod
from tengig.results.export import CSV_COLUMNS
from tengig.results.models import Environment, Nic, RawOutput, RunRecord
from tengig.results.reading import MAX_STORED_DEPTH
from tengig.results.schema import SCHEMA_VERSION
from tengig.results.store import DEFAULT_DB_PATH, ResultStore, default_db_path
from tengig.runner import Completed, Runner
from tengig.verdict.models import DirectionVerdict, Target, Verdict


class Clock:
    now = 1_700_000_000.0


@pytest.fixture
def clock(monkeypatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(store_mod.time, "time", lambda: c.now)
    return c


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "results.sqlite3"


@pytest.fixture
def store(db) -> ResultStore:
    return ResultStore(db)


def env(**overrides) -> Environment:
    base = dict(
        tools={"fio": "fio-3.33", "iperf3": "3.12", "smbd": "4.17.12-Debian"},
        kernel="6.1.0-18-amd64",
        os="Debian GNU/Linux 12 (bookworm)",
        zfs_version="ZFS pool version 23",
        arc_size_bytes=104857600,
        dataset_properties={"recordsize": "1048576", "compression": "off"},
        nics=[Nic(name="eth0", speed_bps=10**9, mtu=1500, driver="veth")],
        hostname="nas",
    )
    base.update(overrides)
    return Environment(**base)


def raw(tool: str = "fio", exit_code: int | None = 0, stdout: str = "{}", stderr: str = "") -> RawOutput:
    return RawOutput(tool=tool, argv=[tool, "--output-format=json"], exit_code=exit_code, stdout=stdout,
                     stderr=stderr, started=1_700_000_001.5, seconds=2.25)


def verdict() -> Verdict:
    target = Target(name="hdd-15k", title="15k HDD", read_bytes_per_s=223.4e6, source="review")
    direction = DirectionVerdict(direction="read", smb_bytes_per_s=110e6, target_bytes_per_s=223.4e6,
                                 beats_target=False, margin_percent=-50.76, bottleneck="link", ceilings=[])
    return Verdict(target=target, directions=[direction], advice=[], summary="loses by 51%: the 1 Gb/s link")


def test_round_trip(store):
    run_id = store.start_run("smb", {"target": "hdd-15k", "preset": "quick"}, env())
    store.add_raw(run_id, raw("smbclient", stdout="getting file big.bin of size 1073741824"))
    store.add_raw(run_id, raw("iperf3", stdout='{"end": {}}'))
    assert store.get(run_id).status == "running"
    results = {"smb": {"read_bytes_per_s": 115_000_000.0, "files": 1}}
    done = store.finish_run(run_id, "success", results=results, verdict=verdict())

    again = store.get(run_id)
    assert again == done
    assert (again.kind, again.status, again.error) == ("smb", "success", None)
    assert again.inputs == {"target": "hdd-15k", "preset": "quick"}
    assert again.results == results
    assert Verdict.model_validate(again.verdict) == verdict()
    assert again.environment == env()
    assert [r.tool for r in again.raw] == ["smbclient", "iperf3"]
    assert again.raw[0] == raw("smbclient", stdout="getting file big.bin of size 1073741824")
    assert again.finished is not None and again.finished >= again.started


def test_failed_run_refuses_results_and_keeps_error_and_raw(store):
    run_id = store.start_run("pool", {"preset": "quick"}, None)
    store.add_raw(run_id, raw("fio", exit_code=1, stderr="fio: io_u error on file /tank/x: No space left on device"))
    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "failed", results={"seq1m_read_bytes_per_s": 0.0}, error="pool full")
    assert [f for f, _ in exc.value.errors] == ["results"]
    assert "never becomes a number" in exc.value.message
    assert store.get(run_id).status == "running"  # nothing was written

    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "failed")
    assert exc.value.errors[0][0] == "error"

    failed = store.finish_run(run_id, "failed", error="fio: No space left on device")
    assert (failed.status, failed.results, failed.verdict) == ("failed", None, None)
    assert failed.error == "fio: No space left on device"
    assert failed.raw[0].exit_code == 1 and "No space left" in failed.raw[0].stderr


def test_aborted_run_refuses_results_and_says_it_was_aborted(store):
    run_id = store.start_run("net", {}, None)
    with pytest.raises(ValidationError):
        store.finish_run(run_id, "aborted", results={"x_bps": 1.0})
    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "aborted", verdict=verdict())
    assert exc.value.errors[0][0] == "verdict"
    aborted = store.finish_run(run_id, "aborted")
    assert aborted.results is None and aborted.error == "aborted before it finished"


def test_the_database_itself_refuses_results_on_a_failed_run(store, db):
    run_id = store.start_run("pool", {}, None)
    conn = sqlite3.connect(db)
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("UPDATE runs SET status = 'failed', results = '{}' WHERE id = ?", (run_id,))
    conn.close()


def test_finish_rules(store):
    run_id = store.start_run("net", {}, None)
    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "success")
    assert exc.value.errors[0][0] == "results"
    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "success", results={"x": 1}, error="but it failed")
    assert exc.value.errors[0][0] == "error"
    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "running")
    assert exc.value.errors[0][0] == "status"
    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "success", results={"goodput_bps": float("nan")})
    assert exc.value.errors[0][0] == "results"
    store.finish_run(run_id, "success", results={"goodput_bps": 941e6})
    with pytest.raises(TengigError, match="already finished"):
        store.finish_run(run_id, "failed", error="late")
    with pytest.raises(ValidationError) as exc:
        store.start_run("disk", {}, None)
    assert exc.value.errors[0][0] == "kind"


def nest(levels: int) -> dict:
    """A JSON object nesting ``levels`` levels of objects ({} is one)."""
    value: dict = {}
    for _ in range(levels - 1):
        value = {"x": value}
    return value


def test_what_the_store_could_not_read_back_is_refused_before_it_is_written(store):
    run_id = store.start_run("net", {}, None)
    with pytest.raises(ValidationError) as exc:
        store.finish_run(run_id, "success", results=nest(MAX_STORED_DEPTH + 1))
    assert exc.value.errors[0][0] == "results" and f"more than {MAX_STORED_DEPTH} levels" in exc.value.errors[0][1]
    looped: dict = {}
    looped["self"] = looped
    with pytest.raises(ValidationError):  # counting its depth ends
        store.start_run("net", looped, None)
    store.finish_run(run_id, "success", results=nest(MAX_STORED_DEPTH))  # as deep as may be stored: read back
    assert store.get(run_id).results == nest(MAX_STORED_DEPTH)


def test_missing_run_is_enoent(store):
    with pytest.raises(TengigError) as exc:
        store.get(99)
    assert exc.value.errno == errno.ENOENT and exc.value.message == "run 99 not found"
    for call in (lambda: store.add_raw(99, raw()), lambda: store.delete(99),
                 lambda: store.finish_run(99, "failed", error="x")):
        with pytest.raises(TengigError) as exc:
            call()
        assert exc.value.errno == errno.ENOENT


def test_delete_cascades_to_raw_outputs(store, db):
    keep = store.start_run("net", {}, None)
    store.add_raw(keep, raw("iperf3"))
    gone = store.start_run("pool", {}, None)
    for _ in range(3):
        store.add_raw(gone, raw("fio"))

    def raw_rows(run_id: int) -> int:
        conn = sqlite3.connect(db)
        try:
            return conn.execute("SELECT COUNT(*) FROM raw_outputs WHERE run_id = ?", (run_id,)).fetchone()[0]
        finally:
            conn.close()

    assert raw_rows(gone) == 3
    with pytest.raises(TengigError) as running:  # its process still writes to it
        store.delete(gone)
    assert running.value.errno == errno.EBUSY and "still running" in running.value.message
    assert raw_rows(gone) == 3
    store.finish_run(gone, "failed", error="fio was killed")
    store.delete(gone)
    assert raw_rows(gone) == 0
    assert raw_rows(keep) == 1
    with pytest.raises(TengigError):
        store.get(gone)
    assert store.start_run("pool", {}, None) > gone  # ids are never reused


def test_query_newest_first_with_filters(store, clock):
    ids = {}
    for name, started, kind, status in [
        ("old-pool", 1000.0, "pool", "success"),
        ("new-net", 3000.0, "net", "failed"),
        ("mid-pool", 2000.0, "pool", "failed"),
        ("newest-smb", 4000.0, "smb", "success"),
    ]:
        clock.now = started
        ids[name] = store.start_run(kind, {"name": name}, None)
        store.add_raw(ids[name], raw())
        if status == "success":
            store.finish_run(ids[name], "success", results={"v": 1})
        else:
            store.finish_run(ids[name], "failed", error="tool failed")

    def names(runs: list[RunRecord]) -> list[str]:
        return [r.inputs["name"] for r in runs]

    assert names(store.query()) == ["newest-smb", "new-net", "mid-pool", "old-pool"]
    assert names(store.query(kind="pool")) == ["mid-pool", "old-pool"]
    assert names(store.query(status="failed")) == ["new-net", "mid-pool"]
    assert names(store.query(kind="pool", status="success")) == ["old-pool"]
    assert names(store.query(limit=2, offset=1)) == ["new-net", "mid-pool"]
    assert all(r.raw == [] for r in store.query())
    assert all(len(r.raw) == 1 for r in store.query(include_raw=True))
    with pytest.raises(ValidationError) as exc:
        store.query(kind="disk", status="done", limit=0, offset=-1)
    assert [f for f, _ in exc.value.errors] == ["kind", "status", "limit", "offset"]


def test_compare_deltas(store):
    a = store.start_run("all", {}, env())
    store.finish_run(a, "success", results={
        "smb": {"read_bytes_per_s": 100e6, "write_bytes_per_s": 50e6, "dialect": "SMB3_11", "signing": True},
        "net": {"streams": [{"goodput_bps": 0}], "retransmits": 4},
        "only_a_seconds": 12.5,
    })
    b = store.start_run("all", {}, env(kernel="6.1.0-20-amd64", nics=[Nic(name="eth0", speed_bps=10**9, mtu=9000)]))
    store.finish_run(b, "success", results={
        "smb": {"read_bytes_per_s": 110e6, "write_bytes_per_s": 40e6, "dialect": "SMB3_11", "signing": False},
        "net": {"streams": [{"goodput_bps": 941e6}], "retransmits": 4},
        "only_b_iops": 7,
    })
    out = store.compare(a, b)
    m = out["metrics"]
    assert set(m) == {"smb.read_bytes_per_s", "smb.write_bytes_per_s", "net.streams.0.goodput_bps", "net.retransmits"}
    assert m["smb.read_bytes_per_s"]["delta"] == pytest.approx(10e6)
    assert m["smb.read_bytes_per_s"]["delta_percent"] == pytest.approx(10.0)
    assert m["smb.read_bytes_per_s"]["unit"] == "B/s"
    assert (m["smb.write_bytes_per_s"]["a"], m["smb.write_bytes_per_s"]["b"]) == (50e6, 40e6)
    assert m["smb.write_bytes_per_s"]["delta_percent"] == pytest.approx(-20.0)
    assert m["net.streams.0.goodput_bps"]["delta"] == 941e6
    assert m["net.streams.0.goodput_bps"]["delta_percent"] is None  # from zero: no percentage
    assert m["net.retransmits"]["delta"] == 0 and m["net.retransmits"]["delta_percent"] == 0
    assert out["only_in_a"] == ["only_a_seconds"] and out["only_in_b"] == ["only_b_iops"]
    assert out["environment"] == {
        "kernel": {"a": "6.1.0-18-amd64", "b": "6.1.0-20-amd64"},
        "nics.eth0.mtu": {"a": 1500, "b": 9000},
        "nics.eth0.driver": {"a": "veth", "b": None},
    }
    failed = store.start_run("all", {}, env())
    store.finish_run(failed, "failed", error="iperf3: connection refused")
    with pytest.raises(ValidationError) as exc:
        store.compare(a, failed)
    assert exc.value.errors[0][0] == "b"


def test_export_csv_rows_and_units(store, clock):
    clock.now = 1_700_000_000.0
    ok = store.start_run("all", {}, None)
    store.finish_run(ok, "success", results={
        "smb": {"read_bytes_per_s": 117.5e6, "signing": False},
        "net": {"single_bps": 941000000},
        "pool": {"rnd4k_q32_iops": 51234.5, "duration_seconds": 30.25, "note": None},
        "label": "quick",
    })
    failed = store.start_run("net", {}, None)
    store.finish_run(failed, "failed", error="iperf3: unable to connect to server: Connection refused")

    rows = list(csv.DictReader(io.StringIO(store.export_csv())))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    assert rows[0]["run_id"] == str(failed)  # newest first; the failed run is a row without a number
    assert (rows[0]["status"], rows[0]["metric"], rows[0]["unit"]) == ("failed", "error", "")
    assert "Connection refused" in rows[0]["value"]
    by_metric = {r["metric"]: r for r in rows if r["run_id"] == str(ok)}
    assert {k: (v["value"], v["unit"]) for k, v in by_metric.items()} == {
        "smb.read_bytes_per_s": ("117500000.0", "B/s"),
        "smb.signing": ("false", ""),
        "net.single_bps": ("941000000", "bit/s"),
        "pool.rnd4k_q32_iops": ("51234.5", "IOPS"),
        "pool.duration_seconds": ("30.25", "s"),
        "label": ("quick", ""),
    }
    assert by_metric["label"]["started_iso"] == "2023-11-14T22:13:20+00:00"
    assert by_metric["label"]["kind"] == "all" and by_metric["label"]["status"] == "success"
    only_ok = list(csv.DictReader(io.StringIO(store.export_csv([ok]))))
    assert {r["run_id"] for r in only_ok} == {str(ok)}


def test_export_json_parses_back(store):
    a = store.start_run("smb", {"share": "bench"}, env())
    store.add_raw(a, raw("smbclient"))
    store.finish_run(a, "success", results={"read_bytes_per_s": 1.5e8}, verdict=verdict())
    b = store.start_run("pool", {}, None)
    store.finish_run(b, "failed", error="dataset full")

    doc = json.loads(store.export_json())
    assert (doc["format"], doc["version"]) == ("tengig-results", 1)
    runs = [RunRecord.model_validate(r) for r in doc["runs"]]
    assert runs == [store.get(b), store.get(a)]
    assert runs[1].raw[0].tool == "smbclient"
    assert [r["id"] for r in json.loads(store.export_json([a]))["runs"]] == [a]
    with pytest.raises(TengigError) as exc:
        store.export_json([a, 404])
    assert exc.value.errno == errno.ENOENT


def test_reopen_keeps_data_in_wal_mode(db):
    first = ResultStore(db)
    run_id = first.start_run("net", {"link": "desk-nas"}, env())
    first.finish_run(run_id, "success", results={"goodput_bps": 941e6})
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()
    reopened = ResultStore(db)
    assert reopened.get(run_id) == first.get(run_id)


def test_a_killed_writer_loses_only_its_open_transaction(db):
    """A process killed (SIGKILL) mid-transaction: committed runs survive, the half-written one does not."""
    script = f"""
import os, signal, sqlite3
from tengig.results.store import ResultStore
store = ResultStore({str(db)!r})
store.start_run("pool", {{"committed": True}}, None)
conn = sqlite3.connect({str(db)!r}, isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO runs (started, kind, status, inputs) VALUES (1, 'net', 'running', '{{}}')")
os.kill(os.getpid(), signal.SIGKILL)
"""
    proc = subprocess.run([sys.executable, "-c", script], timeout=60, capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    store = ResultStore(db)
    assert [r.inputs for r in store.query()] == [{"committed": True}]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_a_newer_schema_is_refused(db):
    ResultStore(db)
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(TengigError, match="newer than this tengig"):
        ResultStore(db)


def test_unusable_path_says_what_to_do(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(TengigError, match="TENGIG_DB"):
        ResultStore(tmp_path / "a-file" / "results.sqlite3")


def test_default_path_and_env_override(monkeypatch, tmp_path):
    monkeypatch.delenv("TENGIG_DB", raising=False)
    assert default_db_path() == DEFAULT_DB_PATH == Path("/var/lib/tengig/results.sqlite3")
    monkeypatch.setenv("TENGIG_DB", str(tmp_path / "sub" / "r.sqlite3"))
    store = ResultStore()
    assert store.path == tmp_path / "sub" / "r.sqlite3" and store.path.exists()


def test_concurrent_writers_and_readers(store):
    failures: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(10):
                run_id = store.start_run("net", {}, None)
                store.add_raw(run_id, raw("iperf3"))
                store.finish_run(run_id, "success", results={"goodput_bps": 1.0})
                store.query(limit=5)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    runs = store.query(limit=1000, include_raw=True)
    assert len(runs) == 80 and len({r.id for r in runs}) == 80
    assert all(r.status == "success" and len(r.raw) == 1 for r in runs)


def test_user_targets_crud(store):
    mine = Target(name="my-nvme", title="My NVMe", read_bytes_per_s=3.5e9, write_bytes_per_s=3.0e9,
                  source="vendor datasheet", builtin=False)
    assert store.user_targets() == []
    stored = store.add_user_target("my-nvme", mine)
    assert stored["name"] == "my-nvme"
    store.add_user_target("usb-stick", {"title": "USB stick", "read_bytes_per_s": 80e6, "source": "measured"})
    assert [t["name"] for t in store.user_targets()] == ["my-nvme", "usb-stick"]
    assert Target.model_validate(store.user_targets()[0]) == mine

    with pytest.raises(ValidationError) as exc:
        store.add_user_target("my-nvme", {"title": "again"})
    assert exc.value.errors[0][0] == "name" and exc.value.errno == errno.EEXIST
    assert "already exists" in exc.value.message
    with pytest.raises(ValidationError) as exc:
        store.add_user_target("Bad Name!", {"title": "x"})
    assert exc.value.errors[0][0] == "name"
    with pytest.raises(ValidationError) as exc:
        store.add_user_target("other", {"name": "my-nvme"})
    assert exc.value.errors[0][0] == "data.name"

    store.delete_user_target("my-nvme")
    assert [t["name"] for t in store.user_targets()] == ["usb-stick"]
    with pytest.raises(TengigError) as exc:
        store.delete_user_target("my-nvme")
    assert exc.value.errno == errno.ENOENT


def test_raw_output_from_the_runner():
    done = Runner().run(["fio", "--version"], timeout=10)
    out = RawOutput.from_completed(done)
    assert (out.tool, out.argv, out.exit_code) == ("fio", ["fio", "--version"], 0)
    assert out.stdout.startswith("fio-") and out.seconds == done.seconds
    wrapped = Completed(("ip", "netns", "exec", "tg-desk", "iperf3", "-c", "nas"), 1, "", "refused", 0.5)
    assert RawOutput.from_completed(wrapped, started=10.0).tool == "iperf3"
    entered = Completed(("nsenter", "--net=/run/netns/tg-nas", "--", "/usr/bin/smbclient", "//nas/x"), 0, "", "", 1.0)
    assert RawOutput.from_completed(entered, started=10.0).tool == "smbclient"


def test_a_version_1_database_takes_smallfiles_runs_and_keeps_its_runs_raw_outputs_and_ids(db):
    """Schema 2 adds the smallfiles kind: SQLite cannot change a CHECK, so the tables are rebuilt; nothing of
    a version-1 database is lost, deleting still cascades, and a deleted run's id is not given again."""
    from tengig.results.schema import MIGRATIONS

    conn = sqlite3.connect(db)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    for run_id in (1, 2, 3):
        conn.execute("INSERT INTO runs (id, started, kind, status, inputs) VALUES (?, 1.0, 'net', 'running', '{}')",
                     (run_id,))
        conn.execute("INSERT INTO raw_outputs (run_id, tool, argv, stdout, stderr, started, seconds) "
                     "VALUES (?, 'iperf3', '[]', 'out', '', 1.0, 2.0)", (run_id,))
    conn.execute("DELETE FROM runs WHERE id = 3")
    conn.execute("DELETE FROM raw_outputs WHERE run_id = 3")
    conn.commit()
    conn.close()
    store = ResultStore(db)
    assert [r.id for r in store.query(limit=10)] == [2, 1]
    assert store.get(1).raw[0].stdout == "out"
    small = store.start_run("smallfiles", {}, None)
    assert small == 4  # not 3: that one was deleted
    store.delete(1)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT COUNT(*) FROM raw_outputs WHERE run_id = 1").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM raw_outputs WHERE run_id = 2").fetchone()[0] == 1
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()
