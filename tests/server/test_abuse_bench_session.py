"""A desktop that joined a run abuses the session API of a real `tengig serve` on 127.0.0.1 (issue 23):
numbers that are not finite, parts sent after the run ended or left behind by a closed connection. The
frames are written by hand (JSON text, as a stranger would send them), never through tengig's client.
Counts and bytes only; nothing here depends on how long anything took."""
from __future__ import annotations

import asyncio
import json
import sqlite3
import threading

import aiohttp
import pytest

from tengig.bench.join.session import SESSIONS
from tengig.results.models import RawOutput
from tengig.results.store import ResultStore

from .harness import open_raw, running_server

pytestmark = pytest.mark.abuse

INFO = {"hostname": "desk", "os": "linux"}


async def _joined(url: str, http: aiohttp.ClientSession, token: str, session, hostname: str = "desk"):
    """A desktop's raw connection, joined, holding an instruction the run posted for it -> (connection, id)."""
    desk = await open_raw(url, http)
    joined = await desk.result("tengig.bench.session.join", token, {"hostname": hostname, "os": "linux"})
    client = next(c for c in session.clients if c.name == joined["name"])
    session.post(client, "iperf3", {})
    got = await desk.result("tengig.bench.session.next", 5)
    return desk, got["id"]


def _submit_text(call_id: int, instruction: int, seconds: str, *, more: bool = False) -> str:
    """A submit frame with ``seconds`` spliced in as JSON text (1e400 is no Python float)."""
    return ('{"jsonrpc": "2.0", "id": %d, "method": "tengig.bench.session.submit", "params": [{"instruction": %d, '
            '"exit_code": 0, "stdout": "{}", "seconds": %s, "more": %s}]}'
            % (call_id, instruction, seconds, "true" if more else "false"))


@pytest.mark.parametrize("seconds", ["1e400", "-1e400", "1e12"])  # NaN and Infinity: not JSON, refused as such
def test_seconds_that_are_not_a_finite_duration_are_refused_naming_the_field(tmp_path, seconds):
    session, token = SESSIONS.create(1, join_timeout=30)
    with running_server(tmp_path) as srv:
        async def scenario():
            async with aiohttp.ClientSession() as http:
                desk, iid = await _joined(srv.url, http, token, session)
                await desk.send(_submit_text(900, iid, seconds))
                refused = await desk.answer(900)
                fine = await desk.call("tengig.bench.session.submit",
                                       {"instruction": iid, "exit_code": 0, "stdout": "{}", "seconds": 2.5})
                taken = session.wait_result(session.clients[0], iid, timeout=5, cancel=threading.Event())
                return refused, fine, taken
        refused, fine, taken = asyncio.run(scenario())
    assert "error" in refused, f"seconds={seconds} was taken: {refused}"
    assert "submission.seconds" in json.dumps(refused["error"]), refused["error"]
    assert fine["result"] is True and taken.seconds == 2.5  # the same desktop, a sane number
    session.end("finished")


def test_a_run_stored_with_an_infinity_by_an_older_tengig_still_reads_and_exports(tmp_path):
    """A store written by tengig before these checks holds a desktop's infinite seconds: tengig.results.get of
    that run and tengig.results.export of every run still answer (the bad value reads as not measured, 0)."""
    store = ResultStore(tmp_path / "results.sqlite3")
    good = store.start_run("net", {}, None)
    store.add_raw(good, RawOutput(tool="iperf3", argv=["iperf3"], exit_code=0, started=1.0, seconds=2.0))
    store.finish_run(good, "success", results={"goodput_bps": 9.4e8})
    bad = store.start_run("net", {}, None)
    with sqlite3.connect(store.path) as db:  # what add_raw stored before RawOutput refused it
        db.execute("INSERT INTO raw_outputs (run_id, tool, argv, exit_code, stdout, stderr, started, seconds) "
                   "VALUES (?, 'iperf3 on desk', '[]', 0, '{}', '', 1.0, ?)", (bad, float("inf")))
    store.finish_run(bad, "success", results={"goodput_bps": 9.4e8})
    with running_server(tmp_path) as srv:
        async def scenario():
            async with aiohttp.ClientSession() as http:
                admin = await open_raw(srv.url, http)
                await admin.login(srv.api_key)
                return (await admin.call("tengig.results.get", bad), await admin.call("tengig.results.export", "json"),
                        await admin.call("tengig.results.export", "csv"))
        got, exported, csv = asyncio.run(scenario())
    assert "result" in got, got
    assert [r["seconds"] for r in got["result"]["raw"]] == [0.0]
    assert "result" in exported, exported
    assert [r["id"] for r in json.loads(exported["result"])["runs"]] == [bad, good]
    assert "result" in csv and csv["result"].count("goodput_bps") == 2


def test_parts_after_the_run_ended_are_refused_and_a_closed_connection_leaves_none(tmp_path):
    session, token = SESSIONS.create(2, join_timeout=30)
    part = {"exit_code": 0, "stdout": "x" * 6000, "more": True}
    with running_server(tmp_path) as srv:
        async def scenario():
            async with aiohttp.ClientSession() as http:
                desk, iid_desk = await _joined(srv.url, http, token, session)
                lab, iid_lab = await _joined(srv.url, http, token, session, "lab")
                for _ in range(10):
                    await desk.result("tengig.bench.session.submit", {"instruction": iid_desk, **part})
                    await lab.result("tengig.bench.session.submit", {"instruction": iid_lab, **part})
                held = session.held_bytes()
                await desk.ws.close()  # the desktop's connection closes: the NAS frees its parts at once
                await _until(lambda: session.clients[0].gone is not None)
                after_close = session.held_bytes()
                session.end("the run on the NAS stopped: aborted")
                refused = await lab.call("tengig.bench.session.submit", {"instruction": iid_lab, **part})
                told = await lab.result("tengig.bench.session.next", 0)
                return held, after_close, session.held_bytes(), refused, told
        held, after_close, after_end, refused, told = asyncio.run(scenario())
    assert held == 2 * 10 * 6000 and after_close == 10 * 6000 and after_end == 0
    assert "error" in refused and "has ended" in refused["error"]["data"]["reason"], refused
    assert told["kind"] == "abort"  # an ended session still answers what the desktop needs to know


async def _until(condition, *, polls: int = 2000) -> None:
    for _ in range(polls):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the server never got there")
