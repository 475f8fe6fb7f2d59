"""Abusive clients, each the reproducer from issue 14, against a real server on 127.0.0.1; every test
asserts counts and bounds (answers received, memory, checks run), never how long anything took.
While each abuse runs, a well-behaved client's calls are answered."""
from __future__ import annotations

import asyncio
import os
import re
import resource
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest

from tengig.results.store import ResultStore
from tengig.server.apikeys import ApiKeyStore

from .harness import RawConnection, open_raw, running_server
from .rawws import RawWebsocket, closed_by_server

pytestmark = pytest.mark.abuse

REPO = Path(__file__).resolve().parents[2]
MIB = 1024 * 1024


# -- a server in a process of its own (its RSS, its signals, its fd limit) ----------------------------------

@contextmanager
def served(tmp_path: Path, *options: str, fd_limit: int | None = None):
    """(process, port, api key) of `python -m tests.server.serve_demo` with ``options``."""
    key = ApiKeyStore(tmp_path / "apikeys.sqlite3").create("abuse")[1]
    sock = Path(tempfile.mkdtemp(prefix="tg-")) / "s.sock"
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'middleware'}:{REPO}", "TENGIG_DB": str(tmp_path / "results.sqlite3")}

    def limit_fds():
        if fd_limit is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))

    proc = subprocess.Popen([sys.executable, "-m", "tests.server.serve_demo", str(sock), *options], cwd=REPO,
                            env=env, stdout=subprocess.PIPE, text=True, preexec_fn=limit_fds)
    try:
        port = int(proc.stdout.readline().split()[1])
        yield proc, port, key
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)


def rss_peak_bytes(pid: int) -> int:
    """The process's peak resident set (VmHWM), from /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024


async def well_behaved(url: str, key: str, calls: int = 20) -> list:
    """A logged-in client's answers to ``calls`` core.ping and tengig.targets.query calls."""
    async with aiohttp.ClientSession() as session:
        conn = await open_raw(url, session)
        await conn.login(key)
        answers = []
        for _ in range(calls // 2):
            answers.append(await conn.result("core.ping", timeout=120))
            answers.append(len(await conn.result("tengig.targets.query", timeout=120)))
        return answers


# -- CPU: 100 queued core.get_methods ------------------------------------------------------------------------

def test_100_queued_get_methods_do_not_hold_up_another_client(tmp_path):
    with running_server(tmp_path) as srv:
        async def scenario():
            async with aiohttp.ClientSession() as session:
                greedy = await open_raw(srv.url, session)
                await greedy.login(srv.api_key)
                ids = [await greedy.request("core.get_methods") for _ in range(100)]
                others = asyncio.ensure_future(well_behaved(srv.url, srv.api_key))
                answers = [await greedy.answer(i, timeout=300) for i in ids]
                return answers, await others
        answers, others = asyncio.run(scenario())
        builds = srv.server.middleware.catalog_builds
    served_ = [a for a in answers if "result" in a]
    refused = [a for a in answers if "error" in a]
    assert len(answers) == 100 and len(served_) >= 20
    assert all(a["error"]["code"] == -32000 for a in refused)  # over the 20 in flight per connection
    assert all(a["result"] == served_[0]["result"] for a in served_)
    assert builds == 1  # built once, then the cached text
    assert others == ["pong", 6] * 10


def test_sigterm_stops_the_server_with_12000_calls_queued(tmp_path):
    with served(tmp_path) as (proc, port, key):
        client = RawWebsocket("127.0.0.1", port)
        client.call(0, "auth.login_with_api_key", key)
        for i in range(1, 12_001):
            client.call(i, "core.get_methods")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
        assert proc.stdout.read().strip() == "STOPPED"
        client.close()


# -- memory: a client that never reads ------------------------------------------------------------------------

def test_a_client_that_never_reads_is_dropped_within_the_outbox_bound(tmp_path):
    with served(tmp_path, "--outbox-bytes", str(4 * MIB), "--outbox-stall-seconds", "3") as (proc, port, key):
        asyncio.run(well_behaved(f"ws://127.0.0.1:{port}/api/current", key, calls=2))  # warm: catalogue, imports
        asyncio.run(_one_get_methods(port, key))
        before = rss_peak_bytes(proc.pid)
        hog = RawWebsocket("127.0.0.1", port, rcvbuf=4096)
        hog.call(0, "auth.login_with_api_key", key)
        sent = 0

        def flood():
            nonlocal sent
            try:
                for i in range(1, 20_001):
                    hog.call(i, "core.get_methods")
                    sent += 1
            except OSError:
                pass  # the server cut it off

        flooding = threading.Thread(target=flood)
        flooding.start()
        others = asyncio.run(well_behaved(f"ws://127.0.0.1:{port}/api/current", key))  # while it floods
        flooding.join(120)
        dropped = hog.closed_by_server()
        growth = rss_peak_bytes(proc.pid) - before
        hog.close()
    assert dropped, f"the server kept a client that read nothing after {sent} requests"
    assert growth < 64 * MIB, f"peak RSS grew {growth / MIB:.0f} MiB for one client that never reads"
    assert others == ["pong", 6] * 10


def test_a_client_that_reads_late_is_waited_for_not_dropped(tmp_path):
    """100 get_methods pipelined (~4 MB of answers), nothing read for 2 s, then everything read: with a
    2 MiB outbox the server must slow this client down (stop taking its requests), not drop it."""
    with served(tmp_path, "--outbox-bytes", str(2 * MIB)) as (proc, port, key):
        async def scenario():
            async with aiohttp.ClientSession() as session:
                late = await open_raw(f"ws://127.0.0.1:{port}/api/current", session)
                await late.login(key)
                ids = [await late.request("core.get_methods") for _ in range(100)]
                await asyncio.sleep(2)
                return [await late.answer(i, timeout=120) for i in ids]
        answers = asyncio.run(scenario())
    served_ = [a for a in answers if "result" in a]
    assert len(answers) == 100 and len(served_) >= 20
    assert all("tengig.bench.run" in a["result"] for a in served_)
    assert all(a["error"]["code"] == -32000 for a in answers if "result" not in a)  # over the 20 in flight


async def _one_get_methods(port: int, key: str) -> None:
    async with aiohttp.ClientSession() as session:
        conn = await open_raw(f"ws://127.0.0.1:{port}/api/current", session)
        await conn.login(key)
        await conn.result("core.get_methods")


# -- logins: 200 wrong ones at once ---------------------------------------------------------------------------

def test_200_wrong_logins_do_not_stall_a_logged_in_admin(tmp_path):
    with running_server(tmp_path) as srv:
        target, _ = srv.keys.create("never-used")  # its id is real: a wrong secret costs a PBKDF2 check
        wrong = [f"{target.id}-{'x' * 60}{i:04d}" for i in range(200)]

        async def scenario():
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
                admin = await open_raw(srv.url, session)
                await admin.login(srv.api_key)

                async def attacker(key: str) -> str:
                    conn = await open_raw(srv.url, session)
                    answer = await conn.result("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "root",
                                                                  "api_key": key}, timeout=300)
                    await conn.ws.close()
                    return answer["response_type"]

                attack = asyncio.gather(*(attacker(key) for key in wrong))
                admin_answers = [await admin.result("core.ping", timeout=120) for _ in range(50)]
                return admin_answers, await attack
        admin_answers, attack = asyncio.run(scenario())
        gate = srv.server.middleware.login_gate
    assert admin_answers == ["pong"] * 50
    assert attack == ["AUTH_ERR"] * 200
    assert gate.verified + gate.refused == 201  # the 200, and the admin's own first login
    assert gate.refused >= 150  # one source: at most a few checks waiting, the rest refused unchecked


def test_password_logins_are_auth_err(tmp_path):
    with running_server(tmp_path) as srv:
        async def scenario(conn: RawConnection):
            return [await conn.result("auth.login_ex", {"mechanism": "PASSWORD_PLAIN", "username": user,
                                                         "password": password})
                    for user, password in (("root", "wrong"), ("root", ""), ("nobody-here", "x"))]
        answers = _with_conn(srv, scenario)
    assert answers == [{"response_type": "AUTH_ERR"}] * 3


# -- keys: a key with a newline is not the key (deleting one: test_abuse_access.py) ---------------------------

def test_a_key_with_a_trailing_newline_does_not_log_in(tmp_path):
    with running_server(tmp_path) as srv:
        async def scenario(conn: RawConnection):
            return [
                (await conn.result("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "root",
                                                      "api_key": srv.api_key + suffix}))["response_type"]
                for suffix in ("\n", "\r\n", " ", "\x00")
            ] + [await conn.result("auth.login_with_api_key", srv.api_key + "\n")]
        answers = _with_conn(srv, scenario)
    assert answers == ["AUTH_ERR"] * 4 + [False]


def test_names_with_a_trailing_newline_are_refused_everywhere():
    from tengig import names
    from tengig.errors import ValidationError

    for check, good in ((names.ifname, "eth1"), (names.freebsd_ifname, "ix0"), (names.hostname, "nas"),
                        (names.dataset, "tank/a"), (names.share, "bench"), (names.filename, "a.txt"),
                        (names.dns_label, "nas"), (names.windows_adapter, "Ethernet 3")):
        assert check(good) == good
        with pytest.raises(ValidationError):
            check(good + "\n")


def test_no_validation_uses_re_match():
    """Input is checked with fullmatch: `re.match` with `$` lets a trailing newline through."""
    offenders = []
    for path in (REPO / "middleware" / "tengig").rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\bre\.match\(|_RE\.match\(|_NAME\.match\(", line):
                offenders.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offenders == []


# -- sockets: idle, slow headers, no login --------------------------------------------------------------------

def test_idle_sockets_cannot_exhaust_file_descriptors(tmp_path):
    """300 idle sockets against a server allowed 256 open files: each is closed after the header
    timeout, and a new client is served."""
    with served(tmp_path, "--header-timeout", "1", "--login-timeout", "1", fd_limit=256) as (proc, port, key):
        idle = []
        for _ in range(300):
            sock = socket.create_connection(("127.0.0.1", port), timeout=120)
            idle.append(sock)
        answers = asyncio.run(well_behaved(f"ws://127.0.0.1:{port}/api/current", key, calls=4))
        closed = sum(1 for sock in idle if _closed_by_server(sock))
        for sock in idle:
            sock.close()
    assert answers == ["pong", 6] * 2
    assert closed == 300


def test_slow_headers_and_sockets_that_never_log_in_are_closed(tmp_path):
    # The login timeout leaves a well-behaved client on a busy machine room to log in (run54, busy: one at 0.5 s
    # was closed between its handshake and its login); the silent sockets are waited for, however long it is.
    with served(tmp_path, "--header-timeout", "0.5", "--login-timeout", "3") as (proc, port, key):
        logged_in = RawWebsocket("127.0.0.1", port)
        logged_in.call(1, "auth.login_with_api_key", key)
        slow = []
        for _ in range(20):
            sock = socket.create_connection(("127.0.0.1", port), timeout=60)
            sock.sendall(b"GET /api/current HTTP/1.1\r\nHost: x\r\n")  # and never the end of the headers
            slow.append(sock)
        silent = [RawWebsocket("127.0.0.1", port) for _ in range(20)]
        others = asyncio.run(well_behaved(f"ws://127.0.0.1:{port}/api/current", key))
        slow_closed = sum(1 for sock in slow if _closed_by_server(sock))
        silent_closed = sum(1 for ws in silent if ws.closed_by_server())
        logged_in.sock.settimeout(3)
        kept = not logged_in.closed_by_server()  # a logged-in client is not timed out
        for sock in slow:
            sock.close()
        for ws in [*silent, logged_in]:
            ws.close()
    assert (slow_closed, silent_closed) == (20, 20)
    assert kept and others == ["pong", 6] * 10


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(60)
    return closed_by_server(sock)


# -- HTTP: static names, security headers ---------------------------------------------------------------------

def test_static_files_404_on_any_bad_name_with_security_headers(tmp_path):
    ui = tmp_path / "dist"
    (ui / "assets").mkdir(parents=True)
    (ui / "index.html").write_text("<html>tengig panel</html>")
    (ui / "assets" / "app.js").write_text("console.log('tengig')")
    (ui / ".hidden").write_text("x")
    bad = ["index.html%00.js", "index.html%0a", "assets/" + "a" * 300 + ".js", "a" * 5000, ".hidden",
           "assets/../../etc/passwd", "%2e%2e/etc/passwd", "assets//app.js", "assets/app.js%20", "nope.js"]
    with running_server(tmp_path, ui_dir=ui) as srv:
        base = f"http://127.0.0.1:{srv.server.port}/"

        async def fetch_all():
            async with aiohttp.ClientSession() as session:
                results = {}
                for name in ["", "assets/app.js", *bad]:
                    async with session.get(base + name) as response:
                        results[name] = (response.status, dict(response.headers), await response.text())
                return results
        results = asyncio.run(fetch_all())
    assert results[""][0] == 200 and results["assets/app.js"][0] == 200
    for name in bad:
        status, headers, body = results[name]
        assert status == 404 and "Traceback" not in body, name
    for status, headers, _ in results.values():
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert headers["X-Frame-Options"] == "DENY"


def test_the_panel_may_connect_only_to_its_own_origin(tmp_path):
    """Issue 23: `connect-src ws: wss:` let the panel's `?api=ws://...` send a login anywhere; the page may
    connect to its own origin only. The browser reproducer (a logger on another port receives no typed
    key, password or remembered key): tests/ui/test_panel_origin.py."""
    with running_server(tmp_path) as srv:
        async def headers():
            async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{srv.server.port}/") as got:
                return got.headers["Content-Security-Policy"]
        policy = asyncio.run(headers())
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["connect-src"] == "'self'"
    assert directives["default-src"] == "'self'"


# -- files: private modes, orphaned runs ----------------------------------------------------------------------

def test_results_database_is_private(tmp_path):
    store = ResultStore(tmp_path / "fresh" / "results.sqlite3")
    store.start_run("pool", {"pool": "tank"}, None)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    for sidecar in store.path.parent.glob("results.sqlite3-*"):
        assert stat.S_IMODE(sidecar.stat().st_mode) & 0o077 == 0, sidecar


def test_runs_left_running_by_a_killed_process_are_aborted_at_start(tmp_path):
    db = tmp_path / "results.sqlite3"
    code = ("import os, sys; from tengig.results.store import ResultStore; "
            "s = ResultStore(sys.argv[1]); print(s.start_run('pool', {'pool': 'tank'}, None), flush=True); "
            "os.kill(os.getpid(), 9)")
    killed = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(REPO / "middleware")})
    orphan = int(killed.stdout.strip())
    store = ResultStore(db)
    live = store.start_run("net", {"clients": ["desk"]}, None)  # this process is alive: its run stays
    assert store.get(orphan).status == "running"
    with running_server(tmp_path):  # TENGIG_DB is this database
        pass
    assert store.get(orphan).status == "aborted" and "ended before it finished" in store.get(orphan).error
    assert store.get(live).status == "running"
    store.finish_run(live, "aborted")


def _with_conn(srv, body):
    async def main():
        async with aiohttp.ClientSession() as session:
            return await body(await open_raw(srv.url, session))
    return asyncio.run(main())
