"""The Windows join kit (desk/kit.py, desk/winkit/, desk/templates/join-windows.ps1.j2): what tengig checks
before it writes one (every value, the ASCII of the script), how it is rendered, and what the NAS makes of its
submissions (the recorded and written samples under fixtures/, see fixtures/README.md, fed to the NAS's own
judging functions). What the kit does is tested by running it: tests/desk/kit/*.Tests.ps1 under pwsh
(test_kit_pester.py) and test_kit_pwsh.py."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tengig.bench.parse.copy_parse import exit_ok, parse_copy
from tengig.bench.join.joined import _net_result, checked, link_of
from tengig.bench.phases.nas_port import NasPort
from tengig.bench.join.session import JoinedClient
from tengig.join_protocol.messages import JoinInfo, Submission
from tengig.bench.phases.smb_probes import LinkCounters
from tengig.cli.main import main
from tengig.api import Registry, ValidationErrors
from tengig.api.host import Middleware
from tengig.desk.instructions import iperf3_argv
from tengig.desk.kit import CS_FILES, KIT_SOURCE, PS_FILES, kit_config, ps_literal, ps_quote, render_kit
from tengig.errors import ToolOutputError, ValidationError

from .powershell import as_powershell_51_reads, commands, parameters, parse, top_level_commands

FIX = Path(__file__).parent / "fixtures"
TOKEN = "tgb-" + "0123456789abcdef" * 3
NAS = "ws://nas.example.lan:8610"
SIZE = 256 * 1024 * 1024
TMP = r"C:\Users\ana\AppData\Local\Temp\tengig-kit-5f0c2b9e41d84a0e9d3c6b7a8e1f2d30"
UNC = r"\\10.250.12.1\media\tengig-bench-1748945560-1-desk"
ROBOCOPY_FLAGS = ["/J", "/IS", "/IT", "/R:0", "/W:0", "/NP", "/NDL", "/BYTES"]


def _kit(**kwargs) -> str:
    return render_kit(**{"os_name": "windows", "nas": NAS, "token": TOKEN, "share": "media", **kwargs})


def _log(name: str) -> str:
    text = (FIX / name).read_bytes().decode()
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("# "))


# -- the script ------------------------------------------------------------------------------------------

def test_the_kit_is_plain_ascii_with_its_config_rendered_as_powershell_literals():
    script = _kit(nas="wss://[fd00::1]:8610/api/current", fingerprint="ab" * 32)
    assert script.isascii() and "{{" not in script and "{%" not in script
    config = kit_config("wss://[fd00::1]:8610/api/current", "fd00::1", TOKEN, "media", "AB" * 32)
    assert "$KitConfig = " + ps_literal(config) + "\n" in script  # the one rendered block of values
    assert ps_literal({"a": [1, "it's"], "b": {"c": True}}) == "[ordered]@{\n    'a' = @([long]1, 'it''s')\n    'b' = [ordered]@{\n        'c' = $true\n    }\n}"


def test_the_script_is_the_kits_source_put_together():
    """Every function and C# file of winkit/ once, in order; nothing else runs at the top but the entry."""
    script = _kit()
    at = [script.index((KIT_SOURCE / name).read_text().rstrip("\n")) for name in PS_FILES]
    assert at == sorted(at)
    assert [name for name in CS_FILES if (KIT_SOURCE / name).read_text().split("namespace TengigKit", 1)[1] not in script] == []


# -- join protocol v2: no login, the token in join, no message over 8192 bytes ------------------------

@pytest.mark.abuse
@pytest.mark.parametrize("field, value", [
    ("nas", "http://nas:8610"), ("nas", "nas:8610"), ("nas", "ws://nas:8610/other"), ("nas", "ws://nas:0"),
    ("nas", "ws://nas:99999"), ("nas", "ws://na s"), ("nas", "ws://nas';calc;'"), ("nas", "ws://nas\n"),
    ("nas", "ws://user@nas"), ("nas", "ws://[nas]:1"), ("nas", "ws://nas?x=1"),
    ("nas", "ws://[fe80::1%';calc;']:8610"), ("nas", "ws://[fe80::1%\u2012;calc;\u2012]:8610"),
    ("nas", "ws://[fe80::1%eth0\u2019]:8610"), ("nas", "ws://[fe80::1%25eth0 x]"), ("nas", "ws://[::1"),
    ("token", "tgb-" + "g" * 48), ("token", TOKEN + "\n"), ("token", TOKEN + "'"), ("token", TOKEN.upper()),
    ("share", "me'dia"), ("share", "media\u2019"), ("share", "media\x00"), ("share", "a b"), ("share", ""),
    ("os", "linux"), ("os", "macos"),
])
def test_bad_values_are_refused_naming_the_field(field, value):
    with pytest.raises(ValidationError) as err:
        _kit(**{"os_name" if field == "os" else field: value})
    assert err.value.errors[0][0] == field


def test_single_quotes_of_every_kind_are_doubled():
    assert ps_quote("a'b\u2019c\u2018d") == "'a''b\u2019\u2019c\u2018\u2018d'"


def test_the_command_writes_the_script_and_says_how_to_run_it(tmp_path, capsys):
    out = tmp_path / "tengig-join.ps1"
    assert main(["client", "kit", "--os", "windows", "--nas", NAS, "--token", TOKEN, "--share", "media",
                 "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") and data.decode("ascii").replace("\r\n", "\n") == _kit()
    said = capsys.readouterr().out
    assert "powershell -ExecutionPolicy Bypass -File tengig-join.ps1" in said and "iperf3.exe" in said


def test_the_command_sends_other_oses_to_tengig_client_join(tmp_path, capsys):
    assert main(["client", "kit", "--os", "linux", "--nas", NAS, "--token", TOKEN, "--share", "media",
                 "--out", str(tmp_path / "x.ps1")]) == 2
    assert "tengig client join" in capsys.readouterr().err and not (tmp_path / "x.ps1").exists()


# -- the script as PowerShell reads it (tree-sitter-powershell) -----------------------------------------

HOSTILE_NAS = ["ws://[fe80::1%\u2012;calc;\u2012]:8610", "ws://[fe80::1%';calc;']:8610", "ws://[fe80::1%\u2019;calc]:1"]


def test_the_kit_parses_and_runs_nothing_but_its_join_at_the_top():
    root = parse(_kit())
    assert top_level_commands(root) == ["Set-StrictMode", "New-KitContext", "Invoke-KitMain"]
    assert parameters(root) == {"$Iperf3": "[string]", "$WorkDir": "[string]", "$Name": "[string]",
                                "$NasAddress": "[string[]]", "$Credential": "[System.Management.Automation.PSCredential]",
                                "$CaFile": "[string]", "$Disk": "[string]", "$NoSmb": "[switch]", "$ShareMount": "[string]"}


@pytest.mark.parametrize("nas", HOSTILE_NAS)
def test_a_zone_id_that_is_not_an_interface_name_is_refused_by_the_kit_and_the_api(nas):
    with pytest.raises(ValidationError) as err:
        _kit(nas=nas)
    assert err.value.errors[0][0] == "nas"
    with pytest.raises(ValidationErrors) as refused:
        _panels_kit(nas)
    assert refused.value.errors[0][0] == "request.nas"


def _panels_kit(nas: str) -> str:
    """The kit as the panel downloads it: tengig.bench.kit's text, saved as it is (no BOM)."""
    api = Middleware(Registry.default(), lambda *event: None)
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(api.call("tengig.bench.kit", {"nas": nas, "token": TOKEN, "share": "media"}))["text"]
    finally:
        loop.close()


@pytest.mark.parametrize("nas", [NAS, "ws://10.0.0.1", "ws://[fd00::1]:8610/api/current", "ws://[fe80::1%eth0]:1",
                                 "ws://[fe80::1%12]:8610", "ws://NAS-1.example.LAN:8610"])
def test_every_kit_is_ascii_so_windows_powershell_51_reads_what_was_written(nas):
    """A .ps1 without a BOM is read in the ANSI code page: only ASCII reads the same in every one. As
    cp1252 reads it (where a curly quote ends a string), it is the same script, running the same commands."""
    script = _kit(nas=nas)
    assert script.isascii() and _panels_kit(nas) == script
    as_read = as_powershell_51_reads(script.replace("\n", "\r\n").encode("ascii")).replace("\r\n", "\n")
    assert as_read == script and commands(parse(as_read)) == commands(parse(_kit()))


# -- its submissions, judged by the NAS ------------------------------------------------------------------

CLIENT = JoinedClient("desk", JoinInfo(hostname="DESK", os="windows", tengig="kit 0.1.0", interface="Ethernet 2",
                                       mtu=1500, speed_bps=10**9), peer="127.0.0.1", local="127.0.0.1")
PORT = NasPort(ifname="lo", address="127.0.0.1", mtu=65536, speed_bps=None, shaper_bps=None)


def _submission(doc: dict) -> Submission:
    return Submission.model_validate_json(json.dumps(doc))  # as it arrives: JSON from the kit


def test_an_iperf3_submission_of_the_kit_is_measured_and_checked_on_the_port():
    stdout = (FIX / "iperf3-write-1-stream.json").read_text()
    params = {"server": "127.0.0.1", "port": 5299, "streams": 1, "seconds": 1, "omit": 0, "reverse": False}
    argv = [r"C:\Users\ana\Downloads\tengig\iperf3.exe", *iperf3_argv(params, frozenset({"127.0.0.1"}))[1:]]
    sub = _submission({"instruction": 3, "exit_code": 0, "stdout": stdout, "stderr": "", "argv": argv,
                       "seconds": 1.04})
    doc = json.loads(stdout)
    received = doc["end"]["sum_received"]["bytes"]
    served = json.dumps({"start": {"cookie": doc["start"]["cookie"], "test_start": doc["start"]["test_start"]},
                         "end": {"sum_received": doc["end"]["sum_received"]}})  # the NAS's server's count of it
    before = LinkCounters(rx_bytes=10_000, tx_bytes=5_000)
    after = LinkCounters(rx_bytes=10_000 + int(received * 1.03), tx_bytes=5_000 + received // 100)
    result = _net_result(link_of(CLIENT, "nas", PORT), CLIENT, PORT, "write", 1, 1, sub, before, after, served)
    assert result.goodput_bps == pytest.approx(json.loads(stdout)["end"]["sum_received"]["bits_per_second"])
    short = LinkCounters(rx_bytes=10_000 + received // 2, tx_bytes=after.tx_bytes)
    with pytest.raises(ToolOutputError, match="crossed the NAS's port lo"):
        _net_result(link_of(CLIENT, "nas", PORT), CLIENT, PORT, "write", 1, 1, sub, before, short, served)


@pytest.mark.parametrize("name, direction, argv, speed", [
    ("robocopy-put-256MiB.txt", "write", ["robocopy.exe", TMP + r"\put", UNC, "f0.dat", *ROBOCOPY_FLAGS], 111848106),
    ("robocopy-get-256MiB.txt", "read", ["robocopy.exe", UNC, TMP + r"\get", "f0.dat", *ROBOCOPY_FLAGS], 117440512),
])
def test_a_robocopy_submission_of_the_kit_gives_the_bytes_and_the_speed(name, direction, argv, speed):
    sub = _submission({"instruction": 7, "exit_code": 1, "stdout": _log(name), "stderr": "", "argv": argv,
                       "seconds": 2.9})
    assert exit_ok(sub.argv, sub.exit_code) and checked(sub, CLIENT, "put") is sub  # robocopy: 1 = copied
    result = parse_copy(sub.argv, sub.stderr + sub.stdout, direction=direction, expected_bytes=SIZE)
    assert result.bytes == SIZE and result.bytes_per_s == speed
    assert result.bytes / result.seconds == pytest.approx(speed)
    assert 2.0 <= result.seconds <= 2.5  # robocopy's Times row: 0:00:02


def test_a_robocopy_log_with_a_failed_file_is_refused_with_robocopys_error():
    argv = ["robocopy.exe", TMP + r"\put", UNC, "f0.dat", *ROBOCOPY_FLAGS]
    sub = _submission({"instruction": 7, "exit_code": 8, "stdout": _log("robocopy-put-access-denied.txt"),
                       "argv": argv, "seconds": 0.4})
    with pytest.raises(ToolOutputError, match=r"1 file\(s\) FAILED: ERROR 5 \(0x00000005\) Copying File .* "
                                              r"Access is denied\."):
        parse_copy(sub.argv, sub.stdout, direction="write", expected_bytes=SIZE)
    with pytest.raises(ToolOutputError, match=r"the SMB put on desk failed \(exit 8\)"):
        checked(sub, CLIENT, "put")


def test_a_robocopy_log_with_fewer_bytes_than_asked_is_refused():
    argv = ["robocopy.exe", UNC, TMP + r"\get", "f0.dat", *ROBOCOPY_FLAGS]
    with pytest.raises(ToolOutputError, match=r"copied 0 bytes, expected 268435456 \(it skipped the file"):
        parse_copy(argv, _log("robocopy-get-skipped.txt"), direction="read", expected_bytes=SIZE)
    with pytest.raises(ToolOutputError, match=r"copied 268435456 bytes, expected 536870912"):
        parse_copy(argv, _log("robocopy-get-256MiB.txt"), direction="read", expected_bytes=2 * SIZE)


def test_robocopy_numbers_that_disagree_or_are_not_bytes_are_refused():
    argv = ["robocopy.exe"]
    log = _log("robocopy-get-256MiB.txt")
    with pytest.raises(ToolOutputError, match="disagrees with its copy time"):
        parse_copy(argv, log.replace("117440512 Bytes/sec.", "1174405120 Bytes/sec."), direction="read",
                   expected_bytes=SIZE)
    with pytest.raises(ToolOutputError, match=r"run it with /BYTES"):
        parse_copy(argv, log.replace("268435456 268435456", "  256.0 m   256.0 m"), direction="read",
                   expected_bytes=SIZE)
    with pytest.raises(ToolOutputError, match="job summary is not in what it printed"):
        parse_copy(argv, "ERROR : Invalid Parameter #3 : \"/Q\"", direction="read", expected_bytes=SIZE)


def test_the_copy_parser_is_chosen_by_the_program_and_unknown_ones_are_named():
    smbclient = (Path(__file__).parents[1] / "fixtures" / "smbclient" / "put-64MiB-1g.txt").read_text()
    assert parse_copy(["smbclient", "//10.0.0.1/share"], smbclient, direction="write",
                      expected_bytes=64 * 1024 * 1024).bytes == 64 * 1024 * 1024
    assert exit_ok([r"C:\Windows\System32\Robocopy.EXE"], 3) and not exit_ok(["robocopy"], 16)
    assert not exit_ok(["smbclient"], 1) and exit_ok(["[System.IO.Directory]::CreateDirectory", UNC], 0)
    with pytest.raises(ToolOutputError, match=r"made with 'xcopy.exe': tengig reads the output of smbclient, "
                                              r"robocopy and tengig-copy only"):
        parse_copy(["xcopy.exe", "a", "b"], "1 File(s) copied", direction="write", expected_bytes=SIZE)
    with pytest.raises(ToolOutputError, match="ran no copy program: robocopy.exe could not be started"):
        parse_copy([], "robocopy.exe could not be started", direction="write", expected_bytes=SIZE)


