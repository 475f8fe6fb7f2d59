"""The Windows join kit (desk/kit.py, desk/templates/join-windows.ps1.j2) and what the NAS makes of its
submissions. No Windows here: the script is rendered and read, not run; its submissions are the recorded
and written samples under fixtures/ (see fixtures/README.md), fed to the NAS's own judging functions."""
from __future__ import annotations

import asyncio
import ipaddress
import json
import re
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
from tengig.desk.instructions import FREE_MARGIN_BYTES, FREE_MARGIN_SHARE, iperf3_argv
from tengig.join_protocol.limits import MAX_FILE_BYTES
from tengig.join_protocol.naming import REMOTE_RE
from tengig.desk.kit import FIRST_SLICE, MESSAGE_LIMIT, ps_quote, render_kit
from tengig.desk.peer_rule import connect_argv
from tengig.errors import ToolOutputError, ValidationError
from tengig.names import DESKTOP_IFNAME_RE, SHARE_RE
from tengig.text import CONTROL_CLASS

from .powershell import as_powershell_51_reads, commands, functions, parameters, parse, text, top_level_commands

FIX = Path(__file__).parent / "fixtures"
TOKEN = "tgb-" + "0123456789abcdef" * 3
NAS = "ws://nas.example.lan:8610"
SIZE = 256 * 1024 * 1024
TMP = r"C:\Users\ana\AppData\Local\Temp\tengig-kit-5f0c2b9e41d84a0e9d3c6b7a8e1f2d30"
UNC = r"\\10.250.12.1\media\tengig-bench-1748945560-1-desk"
ROBOCOPY_FLAGS = ["/J", "/IS", "/IT", "/R:0", "/W:0", "/NP", "/NDL", "/BYTES"]


def _kit(**kwargs) -> str:
    return render_kit(**{"os_name": "windows", "nas": NAS, "token": TOKEN, "share": "media", **kwargs})


def _function(script: str, name: str) -> str:
    """The text of one PowerShell function of the kit, from its `function` line to its closing brace."""
    [body] = re.findall(rf"^function {name}\b.*?^}}$", script, re.M | re.S)
    return body


def _log(name: str) -> str:
    text = (FIX / name).read_bytes().decode()
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("# "))


# -- the script ------------------------------------------------------------------------------------------

def test_the_kit_has_the_nas_token_and_share_once_each_in_their_assignments():
    script = _kit()
    assert script.count("$NasUri = 'ws://nas.example.lan:8610/api/current'\n") == 1
    assert script.count("$NasHost = 'nas.example.lan'\n") == 1
    assert script.count(f"$Token = '{TOKEN}'\n") == 1 and script.count(TOKEN) == 1
    assert script.count("$Share = 'media'\n") == 1


def test_the_kit_is_plain_ascii_with_nothing_left_unrendered():
    script = _kit(nas="wss://[fd00::1]:8610/api/current", fingerprint="ab" * 32)
    assert "$NasUri = 'wss://[fd00::1]:8610/api/current'" in script
    assert script.isascii()
    assert [m for m in ("{{", "}}", "{%", "%}", "{#", "#}") if m in script] == []
    assert script.count("{") == script.count("}") and script.count("(") == script.count(")")


def test_the_kit_checks_instructions_with_the_same_patterns_and_argv_as_the_linux_client():
    script = _kit()
    assert ps_quote(REMOTE_RE.pattern) in script and ps_quote(SHARE_RE.pattern) in script
    [line] = [ln for ln in _function(script, "Get-Iperf3ClientArgv").splitlines()
              if ln.strip().startswith("$argv = @($Iperf3")]
    kit_flags = re.findall(r"'(-[A-Za-z])'", line)
    params = {"server": "10.0.0.1", "port": 5201, "streams": 2, "seconds": 5, "omit": 1, "reverse": False}
    assert kit_flags == [a for a in iperf3_argv(params, frozenset({"10.0.0.1"})) if a.startswith("-")]
    # a mesh verify's peer test builds it alike: the same argv as tengig client join's (peer_rule.connect_argv)
    assert "Get-Iperf3ClientArgv" in _function(script, "Get-PeerConnectArgv")
    attached = [ipaddress.IPv4Network("10.0.0.0/30")]
    assert kit_flags == [a for a in connect_argv(params, attached) if a.startswith("-")]
    assert "'port' = @(1, 65535)" in script and "'streams' = @(1, 64)" in script


# -- join protocol v2: no login, the token in join, no message over 8192 bytes ------------------------

def test_the_kit_joins_without_a_login_the_token_being_joins_first_param():
    script = _kit()
    assert [word for word in ("login_ex", "auth.", "TOKEN_PLAIN", "mechanism", "response_type") if word in script] == []
    calls = re.findall(r"Invoke-Nas '([\w.]+)' (@\([^()]*\))", script)
    assert sorted(calls) == [("tengig.bench.session.join", "@($Token, $info)"), ("tengig.bench.session.next", "@(10)"),
                             ("tengig.bench.session.submit", "@(, $part)")]
    assert script.count("Invoke-Nas '") == len(calls)  # every call of the NAS, each with its list of params
    assert script.count("$Token") == 2 and "$info = Get-JoinInfo\n" in script  # assigned, then sent in join only
    join = _function(script, "Invoke-Join")
    assert "could not join: {0} (a kit works for " in join and "-refused (" in join
    assert "throw ($refused -f (Get-Field $failure 'message'))" in _function(script, "Invoke-Nas")


def test_the_kit_names_the_nas_address_only_when_the_nas_knows_it():
    # behind a proxy the join answers an empty nas_address; the Linux client then leaves it out (desk/join.py)
    join = _function(_kit(), "Invoke-Join")
    assert "$over = if ($joined.nas_address) { \", over the NAS's address $($joined.nas_address)\" } else { '' }" in join
    assert 'Write-Say "joined run $($joined.session) as $($joined.name)$over"' in join


def test_every_message_the_kit_sends_is_checked_against_the_8192_byte_limit_before_it_goes():
    script = _kit()
    assert MESSAGE_LIMIT == 8192 and f"$MessageLimit = {MESSAGE_LIMIT}\n" in script
    send = _function(script, "Send-Message")
    check = send.index("if ($bytes.Length -gt $MessageLimit) {")
    assert send.index("$bytes = [System.Text.Encoding]::UTF8.GetBytes($text)") < check
    assert check < send.index("throw \"a bug in this kit: a message of") < send.index(".SendAsync(")
    assert script.count(".SendAsync(") == 1  # no other way out
    assert re.findall(r"\bSend-Message\b.*", script) == [
        "Send-Message([string]$text) {", "Send-Message (Format-Call $id $method $params)"]


def test_a_long_submission_goes_in_parts_with_more_each_measured_as_it_is_sent():
    script = _kit()
    assert FIRST_SLICE == 3000 and f"$FirstSlice = {FIRST_SLICE}  #" in script
    submit = _function(script, "Send-Submission")
    assert "tengig.bench.session.submit" not in script.replace(submit, "")
    assert "Send-Submission ([long]$instruction.id) $result" in _function(script, "Invoke-Join")
    [part] = re.findall(r"\$part = \[ordered\]@\{(.*?)\}", submit, re.S)
    assert re.findall(r"(\w+) = ", part) == ["instruction", "exit_code", "stdout", "stderr", "argv", "seconds", "more"]
    # the tool's CPU and the desktop's CPUs go in every part too, when measured and asked for
    assert "foreach ($key in $cpu.Keys) { $part[$key] = $cpu[$key] }" in submit
    assert "$cpu.cpu_seconds = [double]$result.cpu_seconds; $cpu.cpus = [double]$result.cpus" in submit
    assert set(Submission.model_fields) == {"instruction", "exit_code", "stdout", "stderr", "argv", "seconds", "more",
                                            "cpu_seconds", "cpus"}
    # Each part starts at the first budget, is measured as the very text Invoke-Nas will send (the same
    # method, params and next id) and halved while over the limit; the last part is the one without more.
    steps = ["$budget = $FirstSlice", "$outSlice = Get-Slice $stdout $outAt $budget",
             "$errSlice = Get-Slice $stderr $errAt ([Math]::Max(0, $budget - $outSlice.Length))",
             "$more = ($outAt + $outSlice.Length -lt $stdout.Length) -or\n"
             "                ($errAt + $errSlice.Length -lt $stderr.Length)",
             "$text = Format-Call ($script:CallId + 1) 'tengig.bench.session.submit' @(, $part)",
             "if ([System.Text.Encoding]::UTF8.GetByteCount($text) -le $MessageLimit -or $budget -le 1) { break }",
             "$budget = [int][Math]::Floor($budget / 2)",
             "[void](Invoke-Nas 'tengig.bench.session.submit' @(, $part))",
             "$outAt += $outSlice.Length", "$errAt += $errSlice.Length", "} while ($more)"]
    at = [submit.find(step) for step in steps]
    assert -1 not in at and at == sorted(at)
    assert "$script:CallId++" in _function(script, "Invoke-Nas")  # the id Format-Call was measured with


@pytest.mark.abuse
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
    assert top_level_commands(root) == ["Join-Path", "Set-StrictMode", "New-Object", "New-Object", "New-Object",
                                        "Join-Path", "Join-Path", "Invoke-Join", "Format-Shown", "Format-Error",
                                        "Stop-Tool", "Remove-Item"]
    assert parameters(root) == {"$Iperf3": "[string]", "$WorkDir": "[string]", "$Name": "[string]",
                                "$NasAddress": "[string[]]", "$Credential": "[System.Management.Automation.PSCredential]",
                                "$CaFile": "[string]", "$Disk": "[string]", "$NoSmb": "[switch]"}


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


@pytest.mark.abuse
def test_the_desktop_checks_every_address_the_nas_names_against_the_nas_it_joined():
    script = _kit()
    fns = functions(parse(script))
    # the NAS's address as the desktop resolves the URL's host, and those the user lists with -NasAddress
    allowed = text(fns["Get-NasAddresses"])
    assert "[System.Net.Dns]::GetHostAddresses($NasHost)" in allowed and "foreach ($listed in $NasAddress)" in allowed
    assert "ConvertTo-IPAddress" in commands(fns["Get-NasAddresses"])
    assert "throw \"-NasAddress: '$listed' is not an IP address" in allowed  # stops the kit before it connects
    join = text(fns["Invoke-Join"])
    assert join.index("$script:NasAddresses = Get-NasAddresses") < join.index(".ConnectAsync(")
    # every instruction's server goes through Get-Address, which refuses another host in words; a peer
    # test's, towards another desktop, through TengigKit.PeerRule (this desktop's own cables only)
    assert [name for name, fn in fns.items() if "'server'" in text(fn)] == ["Get-Address", "Get-PeerConnectArgv"]
    assert "[TengigKit.PeerRule]::Refusal($parsed.ToString(), (Get-AttachedSubnets), $NarrowestPrefix)" in text(
        fns["Get-PeerConnectArgv"])
    assert "Get-Address" in commands(fns["Get-Iperf3Argv"]) and "Get-Address" in commands(fns["Get-SmbOp"])
    check = text(fns["Get-Address"])
    assert commands(fns["Get-Address"]) == ["Get-Field", "ConvertTo-IPAddress", "Stop-Refused", "Format-Value",
                                            "Test-NasAddress", "Stop-Refused"]
    assert "is not the NAS this desktop joined" in check and "-NasAddress $value" in check
    assert check.count("Stop-Refused 'instruction.server'") == 2 and check.index("Test-NasAddress") < check.index(
        "return $parsed.ToString()")
    assert "$script:NasAddresses -contains (Get-PlainAddress $ip)" in text(fns["Test-NasAddress"])
    refused = text(fns["Invoke-Instruction"])  # sent to the NAS, and said to the person at the desktop
    assert "Write-Say \"refused: $($_.Exception.Message)\"" in refused and "stderr = \"refused: " in refused
    assert "if ($kind -eq 'peer') { return (Invoke-Peer $params) }" in refused
    plain = text(fns["Get-PlainAddress"])  # the same host however written: fe80::1%12, ::ffff:10.0.0.1
    assert "$ip.IsIPv4MappedToIPv6" in plain and "$text.IndexOf('%')" in plain


@pytest.mark.abuse
def test_a_file_is_prepared_only_when_it_fits_the_desktops_free_space_and_the_maximum():
    script = _kit()
    fns = functions(parse(script))
    assert f"$MaxFileBytes = [long]{MAX_FILE_BYTES}\n" in script
    assert f"$FreeMarginBytes = [long]{FREE_MARGIN_BYTES}\n" in script and f"$FreeMarginShare = {FREE_MARGIN_SHARE}\n" in script
    smb = commands(fns["Invoke-Smb"])
    assert smb.index("Assert-Room") < smb.index("New-RandomFile")
    room = text(fns["Assert-Room"])
    assert "System.IO.DriveInfo" in room and ".AvailableFreeSpace" in room and "Stop-Refused $field" in room
    assert "function Assert-Room([long]$size, [string]$field = 'instruction.size', [string]$folder = $WorkDir," in room
    assert "-WorkDir" in room


@pytest.mark.abuse
def test_what_the_kit_prints_has_its_control_characters_escaped():
    script = _kit()
    root = parse(script)
    fns = functions(root)
    assert f"$ControlPattern = {ps_quote(CONTROL_CLASS)}\n" in script
    assert "Format-Shown" in commands(fns["Write-Say"]) and "[regex]::Replace($line, $ControlPattern" in text(fns["Format-Shown"])
    printing = [name for name, fn in fns.items() if "Write-Host" in commands(fn)]
    assert printing == ["Write-Say"]
    assert [name for name, fn in fns.items() if "[Console]::" in text(fn)] == []
    assert script.count("[Console]::Error.WriteLine") == 1  # the script's last words, outside its functions
    assert "[Console]::Error.WriteLine(\"[client] error: $(Format-Shown (Format-Error $_.Exception))\")" in script


def test_the_kit_reports_an_interface_name_only_when_the_nas_takes_it():
    script = _kit()
    assert f"$InterfacePattern = '\\A(?:' + {ps_quote(DESKTOP_IFNAME_RE.pattern)} + ')\\z'\n" in script
    info = text(functions(parse(script))["Get-JoinInfo"])
    assert "if ([regex]::IsMatch($adapter.Name, $InterfacePattern)) { $info.interface = [string]$adapter.Name }" in info


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


def test_the_kit_says_its_tools_cpu_only_when_the_nas_asks():
    """issue 26, item 4: robocopy's and iperf3.exe's TotalProcessorTime, the kit's own while it reads the share,
    and the desktop's CPUs; a NAS that does not ask (params' cpu) gets neither (one of an earlier tengig refuses
    keys it does not know)."""
    script = _kit()
    assert "cpu_seconds = $process.TotalProcessorTime.TotalSeconds" in _function(script, "Invoke-Tool")
    read = _function(script, "Read-Share")
    assert read.index("$cpu = $kit.TotalProcessorTime") < read.index("$reader.Read(") < read.index(
        "$cpu = ($kit.TotalProcessorTime - $cpu).TotalSeconds")
    join = _function(script, "Invoke-Join")
    asked = join.index("if ((Get-Field $params 'cpu') -eq $true -and $result.ContainsKey('cpu_seconds')) {")
    assert asked < join.index("$result.cpus = [double][Environment]::ProcessorCount") < join.index(
        "$result.Remove('cpu_seconds')") < join.index("Send-Submission ([long]$instruction.id) $result")


def test_the_kit_reports_its_smb_channels_when_the_nas_asks():
    """op 'channels': Get-SmbMultichannelConnection for the server the copies went to, its rows as JSON."""
    root = parse(_kit())
    body = functions(root)
    assert "Get-SmbMultichannelConnection" in commands(body["Get-SmbChannels"])
    assert "ConvertTo-Json" in commands(body["Get-SmbChannels"])
    assert "Get-SmbChannels" in commands(body["Invoke-Smb"])
    assert "'channels'" in text(body["Get-SmbOp"])
