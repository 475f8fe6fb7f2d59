"""The Windows kit as Windows PowerShell 5.1 reads it, checked without Windows (issue 26, item 1): every
rendered variant parses as PowerShell, and its C# as C# 5, with no error (and a broken copy does not); wss://
bakes in the fingerprint of the certificate the NAS's own listener presents; the copies go to the name the
hint tells the user to save credentials under; the job object's layout is Windows'. What the kit does with
them is tested by running it (tests/desk/kit/*.Tests.ps1, test_kit_pwsh.py)."""
from __future__ import annotations

import asyncio
import ctypes
import re

import pytest

from tengig.api import Registry, ValidationErrors
from tengig.api.host import Middleware
from tengig.cli.main import main
from tengig.desk.kit import KIT_SOURCE, how_to_run, make_kit, render_kit
from tengig.errors import ValidationError
from tests.desk.wss_nas import wss_nas

from .powershell import csharp_of, parse, parse_csharp

TOKEN = "tgb-" + "0123456789abcdef" * 3
PIN = "AB" * 32
NASES = ["ws://nas.example.lan:8610", "ws://10.0.0.1", "ws://[fd00::1]:8610/api/current", "ws://[fe80::1%eth0]:1",
         "ws://[fe80::1%12]:8610", "wss://nas.example.lan", "wss://10.0.0.1:443", "wss://[fd00::1]:8610"]
SHARES = ["media", "a", "Back-Up_2025"]


def _kit(nas: str = "ws://nas.example.lan:8610", share: str = "media") -> str:
    return render_kit(os_name="windows", nas=nas, token=TOKEN, share=share,
                      fingerprint=PIN if nas.startswith("wss://") else "")


# -- every variant parses; a broken one does not --------------------------------------------------------

@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("nas", NASES)
def test_every_rendered_variant_parses_as_powershell_and_its_csharp_as_csharp_5(nas, share):
    script = _kit(nas, share)
    parse(script)  # no ERROR and no missing node
    parse_csharp(csharp_of(script))
    assert "$KitHelpers = @'\n" in script and script.count("\n'@\n") == 1  # one here-string, closed once


@pytest.mark.parametrize("breakage", [
    lambda s: s.replace("function Stop-Tool($Kit) {", "function Stop-Tool($Kit) {{", 1),
    lambda s: s.replace("'tengig.bench.session.next' @(10)", "'tengig.bench.session.next @(10)", 1),
    lambda s: s.replace("if ($null -eq $Kit.Ws) { return }", "if ($null -eq $Kit.Ws { return }", 1),
    lambda s: s.replace("return @{ exit_code = 0; stdout = $line;", "return @{ exit_code = 0; stdout = $line", 1),
    lambda s: s.replace('"smb $($smb.op) $($smb.remote)"', '"smb $($smb.op $($smb.remote)"', 1),
    lambda s: s.replace("    } catch {\n        return @{ exit_code = 127;", "    } catch\n        return @{ exit_code = 127;", 1),
    lambda s: s.replace("\n'@\n", "\n", 1),
], ids=["brace", "quote", "paren", "hashtable", "subexpression", "catch", "here-string"])
def test_a_deliberately_broken_copy_fails_to_parse(breakage):
    script = _kit()
    broken = breakage(script)
    assert broken != script
    with pytest.raises(AssertionError):
        parse(broken)


@pytest.mark.parametrize("breakage", [
    lambda cs: cs.replace("return total;", "return total", 1),
    lambda cs: cs.replace("public static void Disconnect(string unc)\n        {", "public static void Disconnect(string unc)", 1),
    lambda cs: cs.replace("Refused = \"the NAS presented no certificate\";", "Refused = $\"{pin}\";", 1),  # C# 6
], ids=["semicolon", "brace", "csharp6"])
def test_a_deliberately_broken_copy_of_the_csharp_fails(breakage):
    source = csharp_of(_kit())
    broken = breakage(source)
    assert broken != source
    with pytest.raises(AssertionError):
        parse_csharp(broken)


# -- wss://: the NAS's certificate by its fingerprint, read from the NAS's own listener -------------------

@pytest.fixture(scope="module")
def wss(tmp_path_factory):
    with wss_nas(tmp_path_factory.mktemp("kit-tls")) as nas:
        yield nas


def _panels_kit(nas: str) -> dict:
    api = Middleware(Registry.default(), lambda *event: None)
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(api.call("tengig.bench.kit", {"nas": nas, "token": TOKEN, "share": "media"}))
    finally:
        loop.close()


def test_a_wss_kit_trusts_the_certificate_the_nas_presents_by_its_fingerprint(wss, tmp_path, capsys):
    url, fingerprint = wss
    out = tmp_path / "tengig-join.ps1"
    assert main(["client", "kit", "--os", "windows", "--nas", url, "--token", TOKEN, "--share", "media",
                 "--out", str(out)]) == 0
    script = out.read_bytes().decode("ascii").replace("\r\n", "\n")
    assert f"'CertSha256' = '{fingerprint}'\n" in script  # the CLI read it from the listener
    assert _panels_kit(url)["text"] == script  # and so does the panel's kit, the same script


def test_a_ws_kit_has_no_fingerprint_and_a_wss_kit_without_one_is_not_made(tmp_path):
    assert "'CertSha256' = ''\n" in _kit()
    with pytest.raises(ValidationError) as missing:
        render_kit(os_name="windows", nas="wss://nas", token=TOKEN, share="media")
    assert missing.value.errors[0][0] == "fingerprint"
    with pytest.raises(ValidationError) as extra:
        render_kit(os_name="windows", nas="ws://nas", token=TOKEN, share="media", fingerprint=PIN)
    assert extra.value.errors[0][0] == "fingerprint"


def test_a_listener_that_cannot_be_read_is_refused_naming_the_field(unused_tcp_port_refused):
    nas = f"wss://127.0.0.1:{unused_tcp_port_refused}"
    with pytest.raises(ValidationError) as refused:
        make_kit(os_name="windows", nas=nas, token=TOKEN, share="media")
    (field, message), = refused.value.errors
    assert field == "nas" and "cannot read the certificate" in message and "ws://" in message
    with pytest.raises(ValidationErrors) as api:
        _panels_kit(nas)
    assert api.value.errors[0][0] == "request.nas"


@pytest.fixture
def unused_tcp_port_refused():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again: nothing listens there


# -- copies addressed by the name the credentials are saved under, or -Credential -----------------------

@pytest.mark.parametrize("nas, host", [("ws://nas.example.lan:8610", "nas.example.lan"), ("ws://10.0.0.1", "10.0.0.1"),
                                       ("ws://[fd00::1]:8610", "fd00--1.ipv6-literal.net")])
def test_the_copies_go_to_the_name_the_hint_tells_the_user_to_use(nas, host):
    script = _kit(nas)
    hint = how_to_run("tengig-join.ps1", nas, "media")
    assert f"`net use \\\\{host}\\media /user:NAME`" in hint and "-Credential NAME" in hint
    assert f"'ShareHost' = '{host}'\n" in script
    assert f"`net use \\\\{host}\\media /user:NAME` first" in script  # the kit's own header says the same


def test_the_old_hint_with_placeholders_is_gone():
    hint = how_to_run("tengig-join.ps1", "ws://nas.example.lan:8610", "media")
    assert "\\\\NAS\\SHARE" not in hint and "\\\\NAS\\SHARE" not in _kit()


# -- every tool killed, every work file removed, however the kit ends ------------------------------------

def _struct_fields(csharp: str, name: str) -> list[tuple[str, str]]:
    body = csharp[csharp.index(f"private struct {name}"):]
    body = body[:body.index("}")]
    return re.findall(r"public (\w+) (\w+);", body)


def test_the_job_objects_limits_have_windows_layout():
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION as the kit declares it, laid out as on 64-bit Windows (the
    same alignment as here): 144 bytes, the kill-on-close flag at offset 16, as winnt.h has it."""
    csharp = (KIT_SOURCE / "Guard.cs").read_text()
    kinds = {"long": ctypes.c_int64, "ulong": ctypes.c_uint64, "uint": ctypes.c_uint32, "UIntPtr": ctypes.c_size_t}

    def struct(name, extra=None):
        fields = [(f, extra[t] if extra and t in extra else kinds[t]) for t, f in _struct_fields(csharp, name)]
        return type(name, (ctypes.Structure,), {"_fields_": fields})

    basic = struct("BasicLimits")
    io = struct("IoCounters")
    extended = struct("ExtendedLimits", {"BasicLimits": basic, "IoCounters": io})
    assert ctypes.sizeof(basic) == 64 and ctypes.sizeof(io) == 48 and ctypes.sizeof(extended) == 144
    assert basic.LimitFlags.offset == 16
    assert "private const uint KillOnJobClose = 0x2000;" in csharp and "private const int ExtendedLimitInformation = 9;" in csharp
