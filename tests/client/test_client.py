"""tengig.client.Client against a real server: calls, jobs with progress callbacks (new-style and
legacy), errors as ClientError, subscriptions, the unix socket, a refused key."""
from __future__ import annotations

import errno
import threading

import pytest

from tengig.client import Client, ClientError
from tests.server.harness import running_server



@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("client")) as srv:
        yield srv


def test_call_and_job_with_progress(server):
    seen: list[dict] = []
    with Client(server.url, api_key=server.api_key) as c:
        assert c.legacy_jobs is False  # set on connect, like the official client
        assert c.call("core.ping") == "pong"
        assert c.call("demo.jobs.count", {"steps": 4, "seconds": 0.01}, job=True, callback=seen.append) == 4
    assert [j["state"] for j in seen][-1] == "SUCCESS"
    assert {25, 50, 75, 100} <= {j["progress"]["percent"] for j in seen}


def test_job_against_a_legacy_session_waits_for_the_final_event(server):
    seen: list[dict] = []
    with Client(server.url, api_key=server.api_key) as c:
        c.call("core.set_options", {"legacy_jobs": True})
        c.legacy_jobs = True  # what the client learns from a server that keeps legacy jobs
        assert c.call("demo.jobs.count", {"steps": 2}, job=True, callback=seen.append) == 2
        with pytest.raises(ClientError) as failed:
            c.call("demo.jobs.fail", errno.ENOSPC, job=True)
    assert seen[-1]["state"] == "SUCCESS" and failed.value.errno == errno.ENOSPC


def test_errors_carry_code_errno_and_field_paths(server):
    with Client(server.url, api_key=server.api_key) as c:
        with pytest.raises(ClientError) as missing:
            c.call("tengig.results.get", 4242)
        with pytest.raises(ClientError) as invalid:
            c.call("tengig.results.query", {"limit": "ten"})
        with pytest.raises(ClientError) as busy:
            c.call("core.set_options", {"legacy_jobs": True})
            first = c.call("demo.jobs.hold", "tank", 30)
            try:
                c.call("demo.jobs.hold", "tank", 1)
            finally:
                c.call("core.job_abort", first)
    assert (missing.value.code, missing.value.errno, missing.value.errname) == (-32001, errno.ENOENT, "ENOENT")
    assert invalid.value.code == -32602 and invalid.value.field_errors[0][0] == "options.limit"
    assert busy.value.errno == errno.EBUSY


def test_subscribe_receives_job_events(server):
    """The job this test starts, from its ADDED to its SUCCESS. Events of jobs started before it (another
    test's, ending now on the same server) come too: only its own are read."""
    got: dict[int, list[tuple[str, str]]] = {}
    done: list[int] = []
    finished = threading.Event()

    def on_event(mtype, **event):
        if event["fields"]["method"] != "demo.jobs.count":
            return
        got.setdefault(event["id"], []).append((mtype, event["fields"]["state"]))
        if mtype == "ADDED":
            done.append(event["id"])
        if event["fields"]["state"] == "SUCCESS" and event["id"] in done:
            finished.set()

    with Client(server.url, api_key=server.api_key) as c:
        c.subscribe("core.get_jobs", on_event)
        c.call("demo.jobs.count", {"steps": 1})
        assert finished.wait(60)
    [mine] = done
    assert got[mine][0] == ("ADDED", "WAITING") and ("CHANGED", "SUCCESS") in got[mine]


def test_unix_socket_uri_as_root(server):
    with Client(f"ws+unix://{server.unix_socket}") as c:
        assert c.call("tengig.targets.query")[0]["name"] == "hdd-15k-best"


def test_a_wrong_key_or_no_server_is_a_clear_error(server, tmp_path):
    with pytest.raises(ClientError) as refused:
        Client(server.url, api_key="1-" + "x" * 64)
    assert refused.value.errno == errno.EACCES
    with pytest.raises(ClientError) as nobody:
        Client(f"ws+unix://{tmp_path}/none.sock")
    assert nobody.value.errno == errno.ECONNREFUSED
