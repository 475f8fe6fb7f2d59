"""A desktop joins a benchmark run with the run's token and no login (the same protocol under
middlewared, see tests/realmw): the token finds that run and nothing else; the connection may then take
instructions and submit, in parts of at most 8 KiB, and every other method is refused as for anyone
who has not logged in; a wrong token is refused in words; a desktop whose connection closes is gone
from the run at once."""
from __future__ import annotations

import json
import threading
import time

import pytest

from tengig.bench.join.session import SESSIONS, ClientGone
from tengig.client.client import Client
from tengig.client.errors import ClientError
from tengig.join_protocol.parts import MESSAGE_LIMIT, message_bytes, submission_parts

from .harness import running_server

INFO = {"hostname": "desk", "os": "linux"}


def test_a_join_token_may_join_and_submit_and_nothing_else(tmp_path):
    session, token = SESSIONS.create(1, join_timeout=30)
    with running_server(tmp_path) as srv:
        with Client(srv.url) as wrong:
            with pytest.raises(ClientError, match="refused the token"):
                wrong.call("tengig.bench.session.join", token + "0", INFO)
            # a run's token is no login: auth.login_ex TOKEN_PLAIN is refused as on TrueNAS for a wrong token
            assert wrong.call("auth.login_ex", {"mechanism": "TOKEN_PLAIN", "token": token}) == \
                {"response_type": "AUTH_ERR"}
        with Client(srv.url) as desk:
            with pytest.raises(ClientError, match="join a bench session first"):
                desk.call("tengig.bench.session.next", 0)
            joined = desk.call("tengig.bench.session.join", token, INFO)
            assert joined["session"] == session.id and joined["nas_address"] == "127.0.0.1"
            for method, params in (("core.get_methods", ()), ("tengig.bench.run", ({},)),
                                   ("tengig.results.query", ({},)), ("core.subscribe", ("core.get_jobs",))):
                with pytest.raises(ClientError, match="Not authenticated"):
                    desk.call(method, *params)
            with pytest.raises(ClientError, match="already joined"):
                desk.call("tengig.bench.session.join", token, INFO)
            client = session.clients[0]
            iid = session.post(client, "iperf3", {"port": 5201})
            got = desk.call("tengig.bench.session.next", 5)
            assert got["id"] == iid and got["kind"] == "iperf3"
            # an output far over one message goes in parts, and the NAS puts them together in order
            stdout = json.dumps({"end": {"streams": [{"n": i, "pad": "x" * 200} for i in range(120)]}})
            parts = list(submission_parts({"instruction": iid, "exit_code": 0, "stdout": stdout,
                                           "stderr": "warning\n" * 700, "argv": ["iperf3", "-J"], "seconds": 3.5}))
            assert len(parts) > 4 and all(message_bytes(p) <= MESSAGE_LIMIT for p in parts)
            for part in parts:
                assert desk.call("tengig.bench.session.submit", part)
            whole = session.wait_result(client, iid, timeout=5, cancel=threading.Event())
            assert whole.stdout == stdout and whole.stderr == "warning\n" * 700
            assert whole.argv == ["iperf3", "-J"] and whole.seconds == 3.5 and not whole.more
            with pytest.raises(ClientError, match="already answered"):
                desk.call("tengig.bench.session.submit", {"instruction": iid, "exit_code": 0})
            with pytest.raises(ClientError) as err:
                desk.call("tengig.bench.session.submit", {"instruction": iid, "exit_code": 0, "bogus": 1})
            assert "bogus" in str(err.value)
            pending = session.post(client, "smb", {})
        # the desktop's connection closed: the run learns it at once, not after a timeout
        with pytest.raises(ClientGone, match="its connection closed"):
            session.wait_result(client, pending, timeout=30, cancel=threading.Event())
        with Client(srv.url) as late:
            with pytest.raises(ClientError, match="joined late"):
                late.call("tengig.bench.session.join", token, {"hostname": "lab", "os": "linux"})
    session.end("finished")


def test_a_message_over_8_kib_before_login_closes_the_connection(tmp_path):
    """Why the parts: one submission of 9 KiB from a connection that has not logged in is not taken."""
    session, token = SESSIONS.create(1, join_timeout=30)
    with running_server(tmp_path) as srv:
        with Client(srv.url) as desk:
            desk.call("tengig.bench.session.join", token, INFO)
            iid = session.post(session.clients[0], "iperf3", {"port": 5201})
            desk.call("tengig.bench.session.next", 5)
            with pytest.raises(ClientError):
                desk.call("tengig.bench.session.submit", {"instruction": iid, "exit_code": 0, "stdout": "x" * 9000},
                          timeout=10)
        assert iid not in session.clients[0].results
    session.end("finished")


def test_a_joined_desktop_outlives_the_login_timeout_and_a_silent_connection_does_not(tmp_path):
    """A desktop in a run never logs in: joining is what keeps its connection past the time allowed to log in
    (a run lasts minutes), while a connection that neither logs in nor joins is still closed."""
    session, token = SESSIONS.create(1, join_timeout=30)
    with running_server(tmp_path, login_timeout=1.0) as srv:
        with Client(srv.url) as desk, Client(srv.url) as silent:
            desk.call("tengig.bench.session.join", token, INFO)
            time.sleep(2.5)
            assert desk.call("tengig.bench.session.next", 0) is None  # still connected, still in the run
            with pytest.raises(ClientError):
                silent.call("core.ping")
        assert srv.server.login_timeouts == 1
    session.end("finished")
