"""The JSON-RPC protocol of `tengig serve`, spoken in raw frames over aiohttp's websocket client
against a real server: error codes and shapes, authentication, jobs in both legacy_jobs modes,
failure, abort, locks, per-connection limits."""
from __future__ import annotations

import asyncio
import errno
import os

import aiohttp
import pytest

from .demo_services import SLOW_CALLS
from .checks import assert_error, assert_field_paths, assert_job_events
from .harness import RawConnection, open_raw, running_server

ENOTAUTHENTICATED = 207


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("protocol")) as srv:
        yield srv


def scenario(server, body, *, login=True):
    """Run ``body(conn)`` on a fresh raw connection (logged in unless login=False)."""
    async def main():
        async with aiohttp.ClientSession() as session:
            conn = await open_raw(server.url, session)
            if login:
                await conn.login(server.api_key)
            return await body(conn)
    return asyncio.run(main())


# -- framing ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("frame", ["{not json", "", "[1, 2", '{"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": [NaN]}'])
def test_bad_json_is_32700_with_null_id(server, frame):
    async def body(conn: RawConnection):
        await conn.send(frame)
        return await conn.next_frame()
    assert_error(scenario(server, body, login=False), -32700, request_id=None)


@pytest.mark.parametrize("frame, request_id", [
    ("42", None),
    ("[]", None),
    ('{"jsonrpc": "2.0", "id": 7}', 7),
    ('{"jsonrpc": "1.0", "id": 8, "method": "core.ping"}', 8),
    ('{"id": 9, "method": "core.ping"}', 9),
    ('{"jsonrpc": "2.0", "id": 10, "method": "core.ping", "params": {"a": 1}}', 10),
    ('{"jsonrpc": "2.0", "id": 11, "method": ""}', 11),
    ('{"jsonrpc": "2.0", "id": [1], "method": "core.ping"}', None),
])
def test_not_a_request_is_32600(server, frame, request_id):
    async def body(conn: RawConnection):
        await conn.send(frame)
        return await conn.next_frame()
    assert_error(scenario(server, body, login=False), -32600, request_id=request_id)


def test_unknown_method_is_32601(server):
    async def body(conn: RawConnection):
        return await conn.call("tengig.nothing.here", 1)
    assert_error(scenario(server, body), -32601)


def test_notification_runs_but_is_never_answered(server):
    async def body(conn: RawConnection):
        await conn.send({"jsonrpc": "2.0", "method": "core.ping", "params": []})
        await conn.send({"jsonrpc": "2.0", "method": "no.such.method"})
        return await conn.call("core.ping")  # the first frame back must be this answer
    assert scenario(server, body)["result"] == "pong"


# -- params and call errors ---------------------------------------------------------------------------

def test_bad_params_are_32602_with_field_paths(server):
    async def body(conn: RawConnection):
        return [
            await conn.call("tengig.results.query", {"limit": 0, "kind": "disk", "colour": "red"}),
            await conn.call("tengig.results.get", "12"),
            await conn.call("tengig.results.get"),
            await conn.call("tengig.results.get", 1, 2, 3),
            await conn.call("demo.jobs.count", {"steps": 2, "seconds": "fast"}),
        ]
    query, coerced, missing, surplus, nested = scenario(server, body)
    assert_field_paths(query, "options.limit", "options.kind", "options.colour")
    assert_field_paths(coerced, "id")  # "12" is not 12: inputs are strict, as in middlewared
    assert_field_paths(missing, "id")
    assert_field_paths(surplus, "params.1")
    assert_field_paths(nested, "options.seconds")


def test_a_tengig_error_is_32001_with_its_errno(server):
    async def body(conn: RawConnection):
        return await conn.call("tengig.results.get", 424242)
    data = assert_error(scenario(server, body), -32001, errno=errno.ENOENT)
    assert data["errname"] == "ENOENT" and "424242" in data["reason"]


def test_calls_need_authentication_except_login_and_ping(server):
    async def body(conn: RawConnection):
        return (await conn.call("tengig.targets.query"), await conn.call("core.get_jobs"),
                await conn.call("core.subscribe", "core.get_jobs"), await conn.call("core.ping"),
                await conn.call("auth.login_with_api_key", "1-" + "x" * 64),
                await conn.call("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "root",
                                                  "api_key": server.api_key + "x"}))
    targets, jobs, subscribe, ping, bad_key, bad_ex = scenario(server, body, login=False)
    for frame in (targets, jobs, subscribe):
        data = assert_error(frame, -32001, errno=ENOTAUTHENTICATED)
        assert data["errname"] == "ENOTAUTHENTICATED"
    assert ping["result"] == "pong"
    assert bad_key["result"] is False
    assert bad_ex["result"] == {"response_type": "AUTH_ERR"}


def test_login_with_api_key_then_calls_work(server):
    async def body(conn: RawConnection):
        ok = await conn.result("auth.login_with_api_key", server.api_key)
        return ok, await conn.result("tengig.targets.query")
    ok, targets = scenario(server, body, login=False)
    assert ok is True and targets[0]["name"] == "hdd-15k-best"


def test_unauthenticated_big_frame_closes_the_connection(server):
    async def body(conn: RawConnection):
        await conn.send({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": ["x" * 9000]})
        msg = await conn.ws.receive(timeout=60)
        return msg.type, conn.ws.close_code
    kind, code = scenario(server, body, login=False)
    assert kind == aiohttp.WSMsgType.CLOSE and code == 1007


# -- jobs ---------------------------------------------------------------------------------------------

def test_job_in_legacy_mode_answers_its_id_at_once_then_events(server):
    async def body(conn: RawConnection):
        await conn.result("core.subscribe", "core.get_jobs")
        request_id = await conn.request("demo.jobs.count", {"steps": 4})
        job_id = (await conn.answer(request_id))["result"]
        return job_id, request_id, await conn.job_events(job_id)
    job_id, request_id, events = scenario(server, body)
    assert isinstance(job_id, int)
    assert_job_events(events, "SUCCESS", result=4, message_id=request_id)
    percents = [e["fields"]["progress"]["percent"] for e in events]
    assert {25, 50, 75, 100} <= set(percents)
    assert events[-1]["fields"]["progress"]["extra"] == {"step": 4}


def test_job_in_new_mode_answers_its_result_at_the_end(server):
    async def body(conn: RawConnection):
        assert (await conn.result("core.set_options", {"legacy_jobs": False}))["legacy_jobs"] is False
        await conn.result("core.subscribe", "core.get_jobs")
        request_id = await conn.request("demo.jobs.count", {"steps": 3, "seconds": 0.05})
        answer = await conn.answer(request_id)
        job_id = await conn.added_job("demo.jobs.count")
        return request_id, answer, await conn.job_events(job_id)
    request_id, answer, events = scenario(server, body)
    assert answer["result"] == 3
    assert_job_events(events, "SUCCESS", result=3, message_id=request_id)


def test_legacy_jobs_can_be_turned_back_on(server):
    async def body(conn: RawConnection):
        await conn.result("core.set_options", {"legacy_jobs": False})
        back = await conn.result("core.set_options", {"legacy_jobs": True})
        return back, await conn.result("demo.jobs.count", {"steps": 1})
    back, answer = scenario(server, body)
    assert back["legacy_jobs"] is True and isinstance(answer, int)


@pytest.mark.parametrize("legacy", [True, False])
def test_failing_job_event_and_answer(server, legacy):
    async def body(conn: RawConnection):
        await conn.result("core.set_options", {"legacy_jobs": legacy})
        await conn.result("core.subscribe", "core.get_jobs")
        answer = await conn.call("demo.jobs.fail", errno.ENOSPC)
        job_id = await conn.added_job("demo.jobs.fail")
        return answer, await conn.job_events(job_id)
    answer, events = scenario(server, body)
    assert_job_events(events, "FAILED")
    fields = events[-1]["fields"]
    assert fields["exc_info"]["errno"] == errno.ENOSPC and fields["exc_info"]["type"] == "CallError"
    assert "failing on purpose" in fields["error"] and fields["result"] is None
    if legacy:
        assert isinstance(answer["result"], int)
    else:
        assert_error(answer, -32001, errno=errno.ENOSPC)


def test_job_validation_failure_answers_32602_in_new_mode(server):
    async def body(conn: RawConnection):
        await conn.result("core.set_options", {"legacy_jobs": False})
        return await conn.call("demo.jobs.reject")
    assert_field_paths(scenario(server, body), "reject.pool")


@pytest.mark.parametrize("method, params", [
    ("demo.jobs.count", [{"steps": 1000, "seconds": 0.02}]),  # sync, cooperative check_aborted
    ("demo.jobs.child", [30]),                               # sync, external process killed by its hook
    ("demo.jobs.nap", [30]),                                 # async, cancelled
])
def test_abort_ends_the_job_aborted(server, method, params):
    async def body(conn: RawConnection):
        await conn.result("core.subscribe", "core.get_jobs")
        job_id = await conn.result(method, *params)
        async with asyncio.timeout(120):  # a hang guard, not a time limit
            while not any(e["fields"]["state"] == "RUNNING" for e in conn.events if e["id"] == job_id):
                await conn._read_one()
        await asyncio.sleep(0.1)
        abort = await conn.call("core.job_abort", job_id)
        return abort, await conn.job_events(job_id, timeout=120)
    abort, events = scenario(server, body)
    assert abort["result"] is None
    assert_job_events(events, "ABORTED")
    if method == "demo.jobs.child":
        pid = next(e["fields"]["progress"]["extra"]["pid"] for e in events if e["fields"]["progress"]["extra"])
        assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"


def test_aborted_job_answers_ecanceled_in_new_mode(server):
    async def body(conn: RawConnection):
        await conn.result("core.set_options", {"legacy_jobs": False})
        await conn.result("core.subscribe", "core.get_jobs")
        request_id = await conn.request("demo.jobs.nap", 30)
        await conn.result("core.job_abort", await conn.added_job("demo.jobs.nap"))
        return await conn.answer(request_id)
    assert_error(scenario(server, body), -32001, errno=errno.ECANCELED)


def test_second_job_on_a_held_lock_fails_ebusy(server):
    async def body(conn: RawConnection):
        first = await conn.result("demo.jobs.hold", "tank", 30)
        second = await conn.call("demo.jobs.hold", "tank", 1)
        other_pool = await conn.call("demo.jobs.hold", "other", 0)
        await conn.result("core.set_options", {"legacy_jobs": False})  # so job_wait answers at the end
        await conn.result("core.job_abort", first)
        waited = await conn.call("core.job_wait", first)
        assert_error(waited, -32001, errno=errno.ECANCELED)  # job_wait ends as the job ended
        third = await conn.call("demo.jobs.hold", "tank", 0)  # the lock is free again
        return second, other_pool, third
    second, other_pool, third = scenario(server, body)
    data = assert_error(second, -32001, errno=errno.EBUSY)
    assert "tank" in data["reason"]
    assert isinstance(other_pool["result"], int) and third["result"] == "tank"


def test_get_jobs_filters_and_job_wait(server):
    async def body(conn: RawConnection):
        job_id = await conn.result("demo.jobs.count", {"steps": 2})
        waited = await conn.result("core.job_wait", job_id)  # legacy: job_wait is itself a job
        await conn.result("core.set_options", {"legacy_jobs": False})
        result = await conn.result("core.job_wait", job_id)
        by_id = await conn.result("core.get_jobs", [["id", "=", job_id]])
        running = await conn.result("core.get_jobs", [["state", "=", "RUNNING"], ["method", "=", "demo.jobs.count"]])
        one = await conn.result("core.get_jobs", [["id", "=", job_id]], {"get": True, "select": ["id", "state"]})
        count = await conn.result("core.get_jobs", [["method", "^", "demo.jobs."]], {"count": True})
        bad = await conn.call("core.get_jobs", [["id", "~~", 1], "nope"])
        missing = await conn.call("core.job_wait", 10**9)
        return waited, result, by_id, running, one, count, bad, missing
    waited, result, by_id, running, one, count, bad, missing = scenario(server, body)
    assert isinstance(waited, int) and result == 2
    assert [j["id"] for j in by_id] == [by_id[0]["id"]] and by_id[0]["state"] == "SUCCESS"
    assert running == [] and one == {"id": by_id[0]["id"], "state": "SUCCESS"} and count >= 1
    assert_field_paths(bad, "filters.0.1", "filters.1")
    assert_error(missing, -32001, errno=errno.ENOENT)


def test_unsubscribe_stops_events(server):
    async def body(conn: RawConnection):
        ident = await conn.result("core.subscribe", "core.get_jobs")
        await conn.result("core.unsubscribe", ident)
        await conn.result("core.set_options", {"legacy_jobs": False})
        await conn.result("demo.jobs.count", {"steps": 2})
        unknown = await conn.call("core.subscribe", "no.such.event")
        return conn.events, unknown
    events, unknown = scenario(server, body)
    assert events == []
    assert_error(unknown, -32001, errno=errno.ENOENT)


def test_get_methods_lists_every_public_method_with_schemas(server):
    async def body(conn: RawConnection):
        return await conn.result("core.get_methods"), await conn.result("core.get_methods", "tengig.results")
    everything, results = scenario(server, body)
    assert {"core.ping", "auth.login_ex", "tengig.results.query", "tengig.targets.create"} <= set(everything)
    assert set(results) == {"tengig.results.query", "tengig.results.get", "tengig.results.compare",
                            "tengig.results.export", "tengig.results.delete"}
    assert everything["demo.jobs.hold"]["job"] is True and everything["core.ping"]["no_auth_required"] is True
    (run_id,) = everything["tengig.results.get"]["accepts"]  # one schema per argument, as middlewared lists them
    assert run_id["_name_"] == "id" and run_id["description"] == "Run id." and run_id["_required_"] is True
    assert everything["core.ping"]["returns"][0]["_name_"] == "result"


# -- per-connection limits ----------------------------------------------------------------------------

def test_more_than_20_calls_in_flight_get_32000(server):
    async def body(conn: RawConnection):
        ids = [await conn.request("demo.jobs.slow", 1.0) for _ in range(25)]
        return [await conn.answer(i) for i in ids]
    answers = scenario(server, body)
    refused = [a for a in answers if "error" in a]
    assert len(refused) == 5 and [a["result"] for a in answers if "result" in a] == [1.0] * 20
    for frame in refused:
        assert_error(frame, -32000)
        assert "20" in frame["error"]["message"]


def test_only_10_calls_run_at_once(server):
    async def body(conn: RawConnection):
        SLOW_CALLS["peak"] = 0
        ids = [await conn.request("demo.jobs.slow", 0.3) for _ in range(20)]
        return [await conn.answer(i, timeout=120) for i in ids]
    answers = scenario(server, body)
    assert [a["result"] for a in answers] == [0.3] * 20  # all 20 admitted (in flight: 20)
    assert SLOW_CALLS["peak"] == 10  # but never more than 10 running at once
