"""A benchmark run's join token (auth.login_ex TOKEN_PLAIN) logs in to that run and nothing else: it can
join and submit, and every other method (and an admin's) is refused; a wrong token is AUTH_ERR; a
desktop whose connection closes is gone from the run at once."""
from __future__ import annotations

import threading

import pytest

from tengig.bench.session import SESSIONS, ClientGone
from tengig.client.client import Client
from tengig.client.errors import ClientError

from .harness import running_server


def _token_client(url: str, token: str) -> Client:
    client = Client(url)
    answer = client.call("auth.login_ex", {"mechanism": "TOKEN_PLAIN", "token": token})
    assert answer["response_type"] == "SUCCESS"
    return client


def test_a_join_token_may_join_and_submit_and_nothing_else(tmp_path):
    session, token = SESSIONS.create(1, join_timeout=30)
    with running_server(tmp_path) as srv:
        with Client(srv.url) as wrong:
            assert wrong.call("auth.login_ex", {"mechanism": "TOKEN_PLAIN", "token": token + "0"}) == \
                {"response_type": "AUTH_ERR"}
        with _token_client(srv.url, token) as desk:
            for method, params in (("core.get_methods", ()), ("tengig.bench.run", ({},)),
                                   ("tengig.results.query", ({},)), ("core.subscribe", ("core.get_jobs",))):
                with pytest.raises(ClientError, match="may only join that run"):
                    desk.call(method, *params)
            with pytest.raises(ClientError, match="join the bench session first"):
                desk.call("tengig.bench.session.next", 0)
            joined = desk.call("tengig.bench.session.join", {"hostname": "desk", "os": "linux"})
            assert joined["session"] == session.id and joined["nas_address"] == "127.0.0.1"
            client = session.clients[0]
            iid = session.post(client, "iperf3", {"port": 5201})
            got = desk.call("tengig.bench.session.next", 5)
            assert got["id"] == iid and got["kind"] == "iperf3"
            assert desk.call("tengig.bench.session.submit", {"instruction": iid, "exit_code": 0, "stdout": "{}"})
            with pytest.raises(ClientError) as err:
                desk.call("tengig.bench.session.submit", {"instruction": iid, "exit_code": 0, "bogus": 1})
            assert "bogus" in str(err.value)
            pending = session.post(client, "smb", {})
        # the desktop's connection closed: the run learns it at once, not after a timeout
        with pytest.raises(ClientGone, match="its connection closed"):
            session.wait_result(client, pending, timeout=30, cancel=threading.Event())
        with Client(srv.url, api_key=srv.api_key) as admin:  # an admin is not a bench client
            with pytest.raises(ClientError, match="bench session's token"):
                admin.call("tengig.bench.session.join", {"hostname": "x", "os": "linux"})
    session.end("finished")
