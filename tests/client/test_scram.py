"""tengig's SCRAM-SHA-512 login of an API key (client/scram.py) against TrueNAS's own SCRAM server code (its
official client's py_scram, run in that client's virtualenv: tests/client/official/scram_server.py), with the
key's material derived as TrueNAS 26's api_key plugin derives it. The server accepts tengig's proof, tengig
accepts the server's signature; a wrong key is refused by the server, and a server that does not hold the key
is refused by tengig."""
from __future__ import annotations

import base64
import errno
import hmac
import json
import subprocess
from pathlib import Path

import pytest

from tengig.client import Client
from tengig.client.errors import ClientError
from tengig.client.wire import wire_for
from tengig.client.scram import ScramExchange, split_key

from ..server.official_client import official_client

SERVER = Path(__file__).resolve().parent / "official" / "scram_server.py"
KEY = "7-" + "Zq9" * 21 + "x"  # TrueNAS's form: id, '-', 64 letters and digits
ITERATIONS = 50000  # TrueNAS stores 500,000; its least keeps the test short, the exchange is the same


class TrueNasScram:
    """TrueNAS's SCRAM server code in its own process, for one exchange."""

    def __init__(self, username: str = "truenas_admin", api_key: str = KEY):
        python = official_client("master").python
        self.proc = subprocess.Popen([str(python), str(SERVER), username, api_key, str(ITERATIONS)], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def answer(self, message: str) -> dict:
        self.proc.stdin.write(message + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read()
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)


def test_tengig_and_truenas_scram_code_prove_each_other():
    server, exchange = TrueNasScram(), ScramExchange("truenas_admin", KEY)
    try:
        first = server.answer(exchange.client_first())
        assert (first["user"], first["key_id"]) == ("truenas_admin", 7)
        final = server.answer(exchange.client_final(first["rfc_str"]))
        assert "error" not in final, final
        exchange.check_server_final(final["rfc_str"])
    finally:
        server.close()
    assert KEY.split("-", 1)[1] not in exchange.client_first() + final["rfc_str"]


def test_a_wrong_key_is_refused_by_truenas():
    wrong = "7-" + "Aa1" * 21 + "y"
    server, exchange = TrueNasScram(), ScramExchange("truenas_admin", wrong)
    try:
        first = server.answer(exchange.client_first())
        final = server.answer(exchange.client_final(first["rfc_str"]))
    finally:
        server.close()
    assert final["error"].startswith("proof refused"), final


def test_a_server_that_does_not_hold_the_key_is_refused_by_tengig():
    """A server holding another key's material signs the same exchange with it: tengig refuses the signature."""
    exchange = ScramExchange("truenas_admin", KEY)
    other = ScramExchange("truenas_admin", "7-" + "Bb2" * 21 + "z", nonce=exchange.nonce)
    combined = base64.b64encode(base64.b64decode(exchange.nonce) + b"s" * 32).decode()
    server_first = f"r={combined},s={base64.b64encode(b'tengig.Salt.0123').decode()},i={ITERATIONS}"
    exchange.client_final(server_first)
    other.client_final(server_first)
    forged = hmac.digest(other._server_key, other._auth_message, "sha512")
    with pytest.raises(ClientError, match="signature does not match"):
        exchange.check_server_final("v=" + base64.b64encode(forged).decode())


@pytest.mark.parametrize("server_first, said", [
    ("r=someone-elses-nonce,s=c2FsdA==,i=50000", "does not extend ours"),
    ("e=unknown-user", "the server refused: unknown-user"),
    ("garbage", "malformed"),
])
def test_a_server_first_message_that_is_not_scram_is_refused(server_first, said):
    exchange = ScramExchange("truenas_admin", KEY)
    with pytest.raises(ClientError, match=said):
        exchange.client_final(server_first)


def test_too_few_iterations_are_refused():
    exchange = ScramExchange("truenas_admin", KEY)
    with pytest.raises(ClientError, match="iterations"):
        combined = base64.b64encode(base64.b64decode(exchange.nonce) + b"s" * 32).decode()
        exchange.client_final(f"r={combined},s=c2FsdA==,i=1")


def test_a_key_not_of_truenas_form_is_named_without_repeating_it():
    with pytest.raises(ClientError) as bad:
        split_key("secret-without-id")
    assert "ID-KEY" in str(bad.value) and "secret" not in str(bad.value)


class Answers:
    """Client.call's stand-in for the login policy: what the server offers, and every call made."""

    def __init__(self, offered):
        self.offered, self.calls = offered, []

    def __call__(self, method, *params, **kwargs):
        self.calls.append((method, *params))
        if method == "auth.mechanism_choices":
            return self.offered
        return {"response_type": "SUCCESS"} if method == "auth.login_ex" else True


def _client(uri: str, peer: str | None, offered) -> Client:
    client = Client.__new__(Client)  # the login policy alone: no connection
    client.uri, client.peer_address, client.plain_key_in_clear = uri, peer, False
    client.wire = wire_for(uri, "jsonrpc" if "/api/current" in uri or uri.startswith("ws+unix") else "legacy")
    client.call = Answers(offered)
    return client


def test_no_plain_key_over_an_unencrypted_connection_to_another_host():
    client = _client("ws://10.250.12.1:6000/api/current", "10.250.12.1", ["API_KEY_PLAIN", "PASSWORD_PLAIN"])
    with pytest.raises(ClientError, match="in the clear") as refused:
        client.login_with_api_key(KEY, "truenas_admin")
    assert refused.value.errno == errno.ENOTSUP  # not a refused key: the key was kept back
    assert client.call.calls == [("auth.mechanism_choices",)]  # the key was never sent


@pytest.mark.parametrize("uri, peer", [("wss://nas.example:443/api/current", "192.0.2.7"),
                                       ("ws://127.0.0.1:6000/api/current", "127.0.0.1"),
                                       ("ws+unix:///var/run/middleware/middlewared.sock", None)])
def test_a_plain_key_over_a_secure_transport_where_scram_is_not_offered(uri, peer):
    client = _client(uri, peer, ["API_KEY_PLAIN"])
    client.login_with_api_key(KEY, "truenas_admin")
    assert client.call.calls[-1] == ("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": "truenas_admin",
                                                       "api_key": KEY})


def test_scram_where_offered_even_over_tls():
    """Where the server offers SCRAM the plain key is never sent, whatever the transport."""
    client = _client("wss://nas.example:443/api/current", "192.0.2.7", ["API_KEY_PLAIN", "SCRAM"])
    with pytest.raises(ClientError, match="SCRAM as user truenas_admin: SUCCESS"):
        client.login_with_api_key(KEY, "truenas_admin")  # a server that answers SCRAM's first step with SUCCESS
    [login] = [c for c in client.call.calls if c[0] == "auth.login_ex"]
    assert login[1]["mechanism"] == "SCRAM" and login[1]["scram_type"] == "CLIENT_FIRST_MESSAGE"
    assert KEY.split("-", 1)[1] not in json.dumps(client.call.calls)


def test_the_legacy_protocol_keeps_its_plain_key():
    """TrueNAS CORE 13.3 (the legacy protocol) revokes no key sent in the clear: a jail's tengig reaches its host
    over ws:// as before."""
    client = _client("ws://192.168.1.10/websocket", "192.168.1.10", [])
    client.login_with_api_key(KEY)
    assert client.call.calls[-1] == ("auth.login_with_api_key", KEY)
