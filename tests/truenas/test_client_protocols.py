"""tengig.client over both wire protocols: the same calls, errors, jobs and events (JSON-RPC 2.0 at
/api/current; legacy /websocket as 24.10 and CORE speak it), and connect()'s protocol discovery."""
import asyncio
import errno
import threading

import pytest

from tengig.api import Registry
from tengig.client import Client, ClientError, candidate_uris, connect
from tengig.server.apikeys import ApiKeyStore
from tengig.server.app import TengigServer
from tests.server.demo_services import DemoJobsService


@pytest.mark.parametrize("release, path", [("24.10", "/websocket"), ("25.04", "/api/current"),
                                           ("13.3", "/websocket")])
def test_connect_finds_the_protocol(standin, release, path):
    nas = standin(release)
    with nas.client() as client:
        assert client.uri.endswith(path)
        assert client.call("system.version") == nas.nas.state.network.version.text


@pytest.mark.parametrize("release", ["24.10", "25.04"])
def test_errors_are_the_same_over_both(standin, release):
    nas = standin(release)
    with nas.client() as client:
        with pytest.raises(ClientError) as invalid:
            client.call("interface.update", "enp3s0f0", {"mtu": 20000})
        with pytest.raises(ClientError) as missing:
            client.call("interface.update", "enp9s9", {})
        with pytest.raises(ClientError) as unknown:
            client.call("interface.nope")
    # Legacy 24.10 sends errno EAGAIN and type VALIDATION for a validation error: the wire normalises it.
    assert (invalid.value.code, invalid.value.errno) == (-32602, errno.EINVAL)
    # 24.10's schemas name the method; 25.04's API layer names the argument (as real 25.10 answers)
    assert invalid.value.field_errors[0][0] == ("interface_update.mtu" if release == "24.10" else "data.mtu")
    assert isinstance(invalid.value.extra, list) and invalid.value.extra[0][2] == errno.EINVAL
    # a missing interface is middlewared's InstanceNotFound: a validation error with no field, errno ENOENT
    assert missing.value.code == -32602 and missing.value.extra[0][2] == errno.ENOENT
    assert missing.value.field_errors[0][1] == "Interface enp9s9 does not exist"
    assert unknown.value.errno == 201 if release == "24.10" else unknown.value.code == -32601


def test_unauthenticated_legacy_calls_are_refused(standin):
    nas = standin("24.10")
    with Client(f"{nas.base}/websocket") as client:
        with pytest.raises(ClientError) as refused:
            client.call("system.version")
        with pytest.raises(ClientError) as no_sub:
            client.subscribe("core.get_jobs", lambda *a, **k: None)
    assert refused.value.errno == 207 and refused.value.errname == "ENOTAUTHENTICATED"
    assert no_sub.value.errno == errno.EACCES


def test_wrong_key_and_unreachable_host(standin):
    nas = standin("24.10")
    with pytest.raises(ClientError) as bad_key:
        connect(nas.base, "1-" + "x" * 64)
    assert bad_key.value.errno == errno.EACCES
    with pytest.raises(ClientError) as nobody:
        connect("127.0.0.1:9", "1-" + "x" * 64)  # nothing listens: refused, and /websocket is not tried
    assert nobody.value.errno == errno.ECONNREFUSED


def test_candidate_uris():
    assert candidate_uris("nas") == ["ws://nas/api/current", "ws://nas/websocket"]
    assert candidate_uris("wss://nas:8443") == ["wss://nas:8443/api/current", "wss://nas:8443/websocket"]
    assert candidate_uris("ws://nas/websocket") == ["ws://nas/websocket"]
    with pytest.raises(ClientError):
        candidate_uris("http://nas")
    with pytest.raises(ClientError, match="is not a host"):  # urlsplit's ValueError, not a traceback
        candidate_uris("ws://[::1")


@pytest.fixture(params=["legacy", "jsonrpc"])
def jobs_server(request, tmp_path):
    """tengig's host with demo job methods, speaking one protocol (legacy: as a 24.10 would)."""
    keys = ApiKeyStore(tmp_path / "keys.sqlite3")
    _, key = keys.create("tests")
    server = TengigServer(host="127.0.0.1", port=0, unix_socket=None, ui_dir=None, api_keys=keys,
                          registry=Registry.default(DemoJobsService), protocol=request.param)
    loop = asyncio.new_event_loop()
    loop_thread = threading.Thread(target=loop.run_forever, daemon=True)
    loop_thread.start()
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    yield server, key
    asyncio.run_coroutine_threadsafe(server.stop(grace_seconds=2), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    loop_thread.join(5)
    loop.close()


def test_jobs_and_subscribe_over_both(jobs_server):
    server, key = jobs_server
    seen, events, done = [], [], threading.Event()

    def on_job_event(mtype, **event):
        events.append((mtype, event["fields"]["state"]))
        if event["fields"]["state"] == "SUCCESS":
            done.set()

    with Client(server.url, api_key=key) as client:
        assert client.call("demo.jobs.count", {"steps": 3, "seconds": 0.01}, job=True, callback=seen.append) == 3
        with pytest.raises(ClientError) as failed:
            client.call("demo.jobs.fail", errno.ENOSPC, job=True)
        client.subscribe("core.get_jobs", on_job_event)
        client.call("demo.jobs.count", {"steps": 1})
        assert done.wait(10)
    assert seen[-1]["state"] == "SUCCESS" and failed.value.errno == errno.ENOSPC
    assert events[0] == ("ADDED", "WAITING") and ("CHANGED", "SUCCESS") in events
