"""wss:// with a self-signed certificate, as a TrueNAS has until someone installs another: a TLS
terminating proxy (as TrueNAS's nginx) in front of a real `tengig serve`, with a certificate made by
openssl for this test. Refused in words naming what to do; trusted with --ca-file; unchecked with
--insecure; the two together are refused naming the field."""
from __future__ import annotations

import asyncio
import contextlib
import ssl
import subprocess
import threading
from pathlib import Path

import pytest

from tengig.cli.main import main
from tengig.client import Client, ClientError
from tengig.client.tls import tls_setting
from tengig.errors import ValidationError
from tests.server.harness import running_server



def _self_signed(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "nas.pem", directory / "nas.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


@contextlib.contextmanager
def tls_proxy(cert: Path, key: Path, upstream_port: int):
    """wss on a free port of 127.0.0.1, each connection piped to the plain server."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    loop = asyncio.new_event_loop()

    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def handle(reader, writer):
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = loop.run_until_complete(asyncio.start_server(handle, "127.0.0.1", 0, ssl=context))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


@pytest.fixture(scope="module")
def wss(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tls")
    cert, key = _self_signed(tmp)
    with running_server(tmp) as srv:
        port = int(srv.url.split(":")[2].split("/")[0])
        with tls_proxy(cert, key, port) as tls_port:
            yield f"wss://127.0.0.1:{tls_port}/api/current", cert, srv


def test_a_self_signed_certificate_is_refused_naming_what_to_do(wss):
    url, _, _ = wss
    with pytest.raises(ClientError) as refused:
        Client(url)
    assert "not trusted" in str(refused.value) and "--ca-file" in str(refused.value)
    assert "--insecure" in str(refused.value) and "ws://" in str(refused.value)


def test_trusted_with_its_certificate_or_unchecked_when_asked(wss):
    url, cert, srv = wss
    with Client(url, api_key=srv.api_key, tls=tls_setting(ca_file=cert)) as trusted:
        assert trusted.call("core.ping") == "pong"
    with Client(url, api_key=srv.api_key, tls=tls_setting(insecure=True)) as unchecked:
        assert unchecked.call("core.ping") == "pong"


def test_bad_tls_options_are_refused_naming_the_field(tmp_path):
    with pytest.raises(ValidationError) as both:
        tls_setting(ca_file=tmp_path, insecure=True)
    assert both.value.errors[0][0] == "insecure"
    not_pem = tmp_path / "nas.pem"
    not_pem.write_text("not a certificate\n")
    with pytest.raises(ValidationError) as bad:
        tls_setting(ca_file=not_pem)
    (field, message), = bad.value.errors
    assert field == "ca_file" and "PEM" in message


def test_join_on_the_command_line_says_why_the_nas_was_not_trusted(wss, capsys):
    url, _, _ = wss
    assert main(["client", "join", url, "--token", "tgb-" + "0" * 48]) != 0
    err = capsys.readouterr().err
    assert "not trusted" in err and "--ca-file" in err
