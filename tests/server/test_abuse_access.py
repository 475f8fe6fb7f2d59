"""Abusive clients at the door, each a reproducer from issue 23, against a real server on 127.0.0.1:
a frame over 8 KiB in bytes before login, JSON nested 8,000 deep, a flood of wrong join tokens or API
keys from the address valid clients share, and a key deleted while its sessions are open. Every test
asserts answers and counters, never how long anything took."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import aiohttp
import pytest

from tengig.bench.join.session import SESSIONS
from tengig.server.apikeys import ApiKeyStore
from tengig.server.legacy import PATH as LEGACY_PATH
from tengig.server.login_gate import LOGIN_THREADS

from .harness import RawConnection, open_raw, running_server

pytestmark = pytest.mark.abuse

REPO = Path(__file__).resolve().parents[2]
CLOSED = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
NOT_AUTHENTICATED = 207  # ENOTAUTHENTICATED


def _run(body):
    async def main():
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            return await body(session)
    return asyncio.run(main())


def _legacy_url(srv) -> str:
    return srv.url.replace("/api/current", LEGACY_PATH)


# -- item 7: the cap before login counts bytes ------------------------------------------------------------

@pytest.mark.parametrize("wire", ["jsonrpc", "legacy"])
def test_a_frame_over_8_kib_in_bytes_before_login_closes_the_connection(tmp_path, wire):
    """8,000 euro signs are 8,000 characters but 24,000 bytes: over the 8 KiB a connection that has not
    logged in may send, closed as an over-long frame is (1007). After login the same frame is taken."""
    frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": ["€" * 8000]}, ensure_ascii=False)
    if wire == "legacy":
        frame = json.dumps({"msg": "method", "id": "1", "method": "core.ping", "params": ["€" * 8000]},
                           ensure_ascii=False)
    assert len(frame) < 8192 < len(frame.encode())
    with running_server(tmp_path) as srv:
        url = srv.url if wire == "jsonrpc" else _legacy_url(srv)

        async def body(session):
            anonymous = await open_raw(url, session)
            if wire == "legacy":
                await anonymous.send({"msg": "connect", "version": "1", "support": ["1"]})
                assert (await anonymous.next_frame())["msg"] == "connected"
            await anonymous.send(frame)
            closing = await anonymous.ws.receive(timeout=60)
            logged_in = await open_raw(srv.url, session)
            await logged_in.login(srv.api_key)
            await logged_in.send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "core.ping",
                                             "params": ["€" * 8000]}, ensure_ascii=False))
            return closing, await logged_in.answer(2)
        closing, after_login = _run(body)
    assert closing.type in CLOSED and closing.data == 1007, closing
    assert "error" in after_login and after_login["error"]["code"] == -32602  # read, parsed, answered


def test_a_pre_login_frame_of_8_kib_in_bytes_is_still_taken(tmp_path):
    """The cap is 8,192 bytes, not fewer: a frame of exactly that many bytes (multi-byte characters
    included) is answered."""
    with running_server(tmp_path) as srv:
        base = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": [""]}, ensure_ascii=False)
        euros = (8192 - len(base.encode())) // 3
        pad = "x" * (8192 - len(base.encode()) - 3 * euros)
        frame = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "core.ping", "params": ["€" * euros + pad]},
                           ensure_ascii=False)
        assert len(frame.encode()) == 8192

        async def body(session):
            conn = await open_raw(srv.url, session)
            await conn.send(frame)
            return await conn.answer(1)
        answer = _run(body)
    assert answer["error"]["code"] == -32602  # core.ping takes no params: answered, not closed


# -- item 9: JSON nested 8,000 deep ---------------------------------------------------------------------------

def test_json_nested_8000_deep_is_answered_without_a_traceback(tmp_path, caplog):
    """'[' * 8000 before login, on /websocket and /api/current: a clean protocol answer on each, nothing
    logged with a traceback, and the same connections and a well-behaved client go on being served."""
    caplog.set_level(logging.DEBUG)
    deep = "[" * 8000
    with running_server(tmp_path) as srv:
        async def body(session):
            legacy = await open_raw(_legacy_url(srv), session)
            await legacy.send({"msg": "connect", "version": "1", "support": ["1"]})
            connected = await legacy.next_frame()
            await legacy.send(deep)
            legacy_answer = await legacy.next_frame()
            await legacy.send({"msg": "ping", "id": "p"})
            pong = await legacy.next_frame()
            current = await open_raw(srv.url, session)
            await current.send(deep)
            current_answer = await current.next_frame()
            ping = await current.result("core.ping")
            other = await open_raw(srv.url, session)
            await other.login(srv.api_key)
            return connected, legacy_answer, pong, current_answer, ping, await other.result("core.ping")
        connected, legacy_answer, pong, current_answer, ping, other = _run(body)
    assert connected["msg"] == "connected"
    assert legacy_answer == {"msg": "failed", "version": "1"}
    assert pong == {"msg": "pong", "id": "p"}
    assert current_answer["error"]["code"] == -32700 and current_answer["id"] is None
    assert ping == other == "pong"
    assert "Traceback" not in caplog.text
    assert [r for r in caplog.records if r.exc_info] == []


# -- item 8: one address's wrong credentials do not lock out the right ones ---------------------------------

FLOODERS = 16


async def _flood(url: str, session: aiohttp.ClientSession, attempt, stop: asyncio.Event, answers: list) -> None:
    """``FLOODERS`` clients from 127.0.0.1, each: connect, one wrong attempt, close; until ``stop``."""
    async def one(n: int) -> None:
        i = 0
        while not stop.is_set():
            conn = await open_raw(url, session)
            answers.append(await attempt(conn, f"{n:02d}{i:06d}"))
            await conn.ws.close()
            i += 1
    await asyncio.gather(*(one(n) for n in range(FLOODERS)))


async def _wrong_join(conn: RawConnection, salt: str):
    frame = await conn.call("tengig.bench.session.join", f"tgb-{salt:0>48}", {"hostname": "flood", "os": "linux"})
    return frame["error"]["data"]["error"] if "error" in frame else "JOINED"


def _wrong_key_of(key_id: int):
    async def attempt(conn: RawConnection, salt: str):
        answer = await conn.result("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "root",
                                                      "api_key": f"{key_id}-{salt:A>64}"})
        return answer["response_type"]
    return attempt


@pytest.mark.parametrize("flood", ["join tokens", "api keys"])
def test_a_flood_of_wrong_credentials_does_not_lock_out_valid_ones_from_the_same_address(tmp_path, flood):
    """While 16 clients at 127.0.0.1 send wrong join tokens (or wrong secrets for a real key id) as fast as
    they are answered, 5 desktops at 127.0.0.1 join the run with its token and 5 scripts there log in
    with their keys, each key's first login (its PBKDF2 check): all ten get in. Guessing stays slow: from
    that address, the flood's failures are answered through the same back-off as before, most of them
    refused without waiting."""
    run, token = SESSIONS.create(5, join_timeout=60)
    with running_server(tmp_path) as srv:
        target, _ = srv.keys.create("under-attack")
        keys = [srv.keys.create(f"script{i}")[1] for i in range(5)]
        attempt = _wrong_join if flood == "join tokens" else _wrong_key_of(target.id)
        gate = srv.server.middleware.login_gate

        async def body(session):
            stop, answers = asyncio.Event(), []
            flooding = asyncio.ensure_future(_flood(srv.url, session, attempt, stop, answers))
            try:
                while len(answers) < 40:  # the flood is well under way: its back-off is at its longest
                    await asyncio.sleep(0.05)
                joins, logins = [], []
                for i in range(5):
                    desk = await open_raw(srv.url, session)
                    joins.append(await desk.call("tengig.bench.session.join", token,
                                                 {"hostname": f"desk{i}", "os": "linux"}))
                    script = await open_raw(srv.url, session)
                    logins.append((await script.result("auth.login_ex", {
                        "mechanism": "API_KEY_PLAIN", "username": "root", "api_key": keys[i]}))["response_type"])
                    logins.append(await script.result("core.ping"))
                refused_before = gate.refused
                while gate.refused < refused_before + 20:  # and it goes on while those were let in
                    await asyncio.sleep(0.05)
                return joins, logins, answers
            finally:
                stop.set()
                await flooding
        joins, logins, answers = _run(body)
    run.end("finished")
    assert all("result" in j for j in joins), joins
    assert sorted(j["result"]["name"] for j in joins) == [f"desk{i}" for i in range(5)]
    assert logins == ["SUCCESS", "pong"] * 5
    wrong = 13 if flood == "join tokens" else "AUTH_ERR"  # EACCES: the NAS refused the token
    assert set(answers) == {wrong}, set(answers)
    # every failure went through the address's back-off, but the attacked key's first check (it had not failed)
    assert gate.refused + gate.delayed >= len(answers) - (flood == "api keys")
    assert gate.refused > 4 * gate.delayed  # few are let wait their turn; the rest are refused at once


def test_failures_for_one_key_id_do_not_delay_another_keys_first_login(tmp_path):
    """Counted, not timed: after wrong secrets for one key id from an address, the first login of another
    key from that address is checked at once (not through the address's back-off), while the next
    wrong secret for the attacked id waits its turn."""
    with running_server(tmp_path) as srv:
        target, _ = srv.keys.create("under-attack")
        _, other = srv.keys.create("other")
        gate = srv.server.middleware.login_gate

        async def login(key: str) -> str:
            async with aiohttp.ClientSession() as session:
                conn = await open_raw(srv.url, session)
                return (await conn.result("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "root",
                                                            "api_key": key}))["response_type"]

        async def body(_):
            wrong = [await login(f"{target.id}-{'B' * 60}{i:04d}") for i in range(3)]
            before = (gate.verified, gate.delayed)
            valid = await login(other)
            after_valid = (gate.verified, gate.delayed)
            again = await login(f"{target.id}-{'C' * 64}")
            return wrong, before, valid, after_valid, again, (gate.verified, gate.delayed)
        wrong, before, valid, after_valid, again, last = _run(body)
    assert wrong == ["AUTH_ERR"] * 3 and valid == "SUCCESS" and again == "AUTH_ERR"
    assert after_valid == (before[0] + 1, before[1])  # checked, and not through the back-off
    assert last == (after_valid[0] + 1, after_valid[1] + 1)  # the attacked id waits its turn


def test_guessing_a_known_runs_secret_is_as_slow_as_guessing_a_keys(tmp_path):
    """Counted, not timed: someone who knows a run's label (the token's public part) and guesses its
    secret from an address gets one comparison at once, then every next guess waits its turn in the
    address's back-off (as a key's secret does); the right token still joins, after its turn."""
    run, token = SESSIONS.create(1, join_timeout=60)
    guess = token[:12] + ("0" if token[12] != "0" else "1") + token[13:]
    with running_server(tmp_path) as srv:
        gate = srv.server.middleware.login_gate

        async def join(which: str) -> dict:
            async with aiohttp.ClientSession() as session:
                conn = await open_raw(srv.url, session)
                return await conn.call("tengig.bench.session.join", which, {"hostname": "desk", "os": "linux"})

        async def body(_):
            answers, counts = [], []
            for _ in range(4):
                answers.append((await join(guess))["error"]["data"]["error"])
                counts.append((gate.verified, gate.delayed))
            return answers, counts, await join(token)
        answers, counts, right = _run(body)
    run.end("finished")
    assert answers == [13] * 4  # EACCES: the NAS refused the token
    verified, delayed = zip(*counts)
    assert delayed[0] == 0 and verified == tuple(verified[0] + i for i in range(4))  # each guess compared once
    assert [d - delayed[0] for d in delayed[1:]] == [1, 2, 3]  # the first at once, every later one after its turn
    assert right["result"]["name"] == "desk"


# -- item 11: deleting a key ends its sessions before the delete returns ------------------------------------

def _apikey_cli(srv, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'middleware'}:{REPO}", "TENGIG_APIKEYS_DB": str(srv.keys.path)}
    return subprocess.run([sys.executable, "-m", "tengig", "apikey", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("how", ["cli", "store"])
def test_after_a_key_is_deleted_the_next_call_of_each_of_its_sessions_fails(tmp_path, how):
    """`tengig apikey delete` in another process (or ApiKeyStore.delete in this one): when it returns, the
    very next call on each open session of that key (two on /api/current, one on /websocket) is refused or
    finds the connection closed; a session of another key goes on. No sleeping, no sweep asked for."""
    with running_server(tmp_path) as srv:
        _, doomed = srv.keys.create("doomed")

        async def body(session):
            victims = [await open_raw(srv.url, session) for _ in range(2)]
            for victim in victims:
                await victim.login(doomed)
                assert len(await victim.result(CALL)) == 6
            legacy = await open_raw(_legacy_url(srv), session)
            await legacy.send({"msg": "connect", "version": "1", "support": ["1"]})
            await legacy.next_frame()
            await legacy.send({"msg": "method", "id": "l", "method": "auth.login_with_api_key", "params": [doomed]})
            assert (await legacy.next_frame())["result"] is True
            bystander = await open_raw(srv.url, session)
            await bystander.login(srv.api_key)
            if how == "cli":
                deleted = await asyncio.to_thread(_apikey_cli, srv, "delete", "doomed")
                assert deleted.returncode == 0, deleted.stderr
            else:
                await asyncio.to_thread(ApiKeyStore(srv.keys.path).delete, "doomed")
            outcomes = [await _next_call(v) for v in victims] + [await _next_legacy_call(legacy)]
            return outcomes, len(await bystander.result(CALL))
        outcomes, bystander = _run(body)
    assert outcomes == ["ended"] * 3, outcomes
    assert bystander == 6


CALL = "tengig.targets.query"  # any method that needs a login


async def _next_call(conn: RawConnection) -> str:
    """'ended' if the next call is refused as not authenticated or finds the connection closed."""
    try:
        frame = await conn.call(CALL, timeout=60)
    except (AssertionError, ConnectionError, aiohttp.ClientError):
        return "ended"
    if frame.get("error", {}).get("data", {}).get("error") == NOT_AUTHENTICATED:
        return "ended"
    return f"served: {frame}"


async def _next_legacy_call(conn: RawConnection) -> str:
    try:
        await conn.send({"msg": "method", "id": "m", "method": CALL, "params": []})
        msg = await conn.ws.receive(timeout=60)
    except (ConnectionError, aiohttp.ClientError):
        return "ended"
    if msg.type in CLOSED:
        return "ended"
    frame = json.loads(msg.data)
    return "ended" if frame.get("error", {}).get("error") == NOT_AUTHENTICATED else f"served: {frame}"


def test_a_login_checked_while_its_key_is_deleted_does_not_log_in(tmp_path):
    """A key's first login is under way (its PBKDF2 check waits for the login threads) when the key is
    deleted: the check then passes against the row read before, yet the login is refused."""
    with running_server(tmp_path) as srv:
        _, doomed = srv.keys.create("doomed")
        pool = srv.server.middleware.login_gate._pool
        started, release = threading.Semaphore(0), threading.Event()

        def block() -> None:
            started.release()
            release.wait(60)
        blockers = [pool.submit(block) for _ in range(LOGIN_THREADS)]
        for _ in blockers:
            assert started.acquire(timeout=60)

        async def body(session):
            conn = await open_raw(srv.url, session)
            request = await conn.request("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "root",
                                                           "api_key": doomed})
            while not pool._work_queue.qsize():  # its check is queued behind the blockers
                await asyncio.sleep(0.01)
            await asyncio.to_thread(ApiKeyStore(srv.keys.path).delete, "doomed")
            release.set()
            answer = await conn.answer(request)
            return answer["result"]["response_type"], await _next_call(conn)
        try:
            outcome = _run(body)
        finally:
            release.set()
            for blocker in blockers:
                blocker.result(60)
    assert outcome == ("AUTH_ERR", "ended")


def test_the_cli_says_how_many_sessions_it_ended(tmp_path):
    with running_server(tmp_path) as srv:
        _, doomed = srv.keys.create("doomed")

        async def body(session):
            conn = await open_raw(srv.url, session)
            await conn.login(doomed)
            return await asyncio.to_thread(_apikey_cli, srv, "delete", "doomed")
        deleted = _run(body)
        again = _apikey_cli(srv, "delete", "doomed")
    assert deleted.returncode == 0
    assert "deleted API key 'doomed'" in deleted.stderr and "ended 1 open session" in deleted.stderr
    assert again.returncode != 0 and "no API key named 'doomed'" in again.stderr
    assert "Traceback" not in again.stderr
