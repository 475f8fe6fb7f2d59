"""The Windows kit as Windows would run it, checked without Windows (issue 26, item 1): every rendered variant
parses as PowerShell, and its C# as C# 5, with no error (and a broken copy does not); wss:// trusts the
certificate the NAS's own listener presented when the kit was made (or -CaFile), over TLS 1.2 or later;
the copies go to the name the hint tells the user to save credentials under, or connect with -Credential;
reads land in memory; every tool dies and every work file goes however the kit ends; iperf3.exe and the
free space are checked before joining; errors are shown down to their cause."""
from __future__ import annotations

import asyncio
import ctypes
import hashlib
import re
import ssl

import pytest

from tengig.api import Registry, ValidationErrors
from tengig.api.host import Middleware
from tengig.bench.parse.copy_parse import parse_copy
from tengig.join_protocol.lines import format_own_copy
from tengig.bench.join.own_disk import parse_own_disk
from tengig.join_protocol.limits import SMB_MIN_COPY
from tengig.cli.main import main
from tengig.desk.kit import how_to_run, make_kit, render_kit
from tengig.errors import ValidationError
from tests.client.test_tls import _self_signed, tls_proxy
from tests.server.harness import running_server

from .powershell import commands, csharp_of, functions, parse, parse_csharp, text, walk

TOKEN = "tgb-" + "0123456789abcdef" * 3
PIN = "AB" * 32
NASES = ["ws://nas.example.lan:8610", "ws://10.0.0.1", "ws://[fd00::1]:8610/api/current", "ws://[fe80::1%eth0]:1",
         "ws://[fe80::1%12]:8610", "wss://nas.example.lan", "wss://10.0.0.1:443", "wss://[fd00::1]:8610"]
SHARES = ["media", "a", "Back-Up_2025"]


def _kit(nas: str = "ws://nas.example.lan:8610", share: str = "media") -> str:
    return render_kit(os_name="windows", nas=nas, token=TOKEN, share=share,
                      fingerprint=PIN if nas.startswith("wss://") else "")


def _fns(script: str):
    return functions(parse(script))


# -- every variant parses; a broken one does not --------------------------------------------------------

@pytest.mark.parametrize("share", SHARES)
@pytest.mark.parametrize("nas", NASES)
def test_every_rendered_variant_parses_as_powershell_and_its_csharp_as_csharp_5(nas, share):
    script = _kit(nas, share)
    parse(script)  # no ERROR and no missing node
    parse_csharp(csharp_of(script))
    assert "$KitHelpers = @'\n" in script and script.count("\n'@\n") == 1  # one here-string, closed once


@pytest.mark.parametrize("breakage", [
    lambda s: s.replace("function Stop-Tool {", "function Stop-Tool {{", 1),
    lambda s: s.replace("'tengig.bench.session.next' @(10)", "'tengig.bench.session.next @(10)", 1),
    lambda s: s.replace("if ($null -eq $script:Ws) { return }", "if ($null -eq $script:Ws { return }", 1),
    lambda s: s.replace("return @{ exit_code = 0; stdout = $line;", "return @{ exit_code = 0; stdout = $line", 1),
    lambda s: s.replace('Write-Say "smb $($smb.op) $($smb.remote)"', 'Write-Say "smb $($smb.op $($smb.remote)"', 1),
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
    tmp = tmp_path_factory.mktemp("kit-tls")
    cert, key = _self_signed(tmp)
    with running_server(tmp) as srv:
        port = int(srv.url.split(":")[2].split("/")[0])
        with tls_proxy(cert, key, port) as tls_port:
            der = ssl.PEM_cert_to_DER_cert(cert.read_text())
            yield f"wss://127.0.0.1:{tls_port}", hashlib.sha256(der).hexdigest().upper()


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
    assert script.count(f"$CertSha256 = '{fingerprint}'\n") == 1  # the CLI read it from the listener
    assert _panels_kit(url)["text"] == script  # and so does the panel's kit, the same script
    fns = _fns(script)
    join = text(fns["Invoke-Join"])
    # TLS 1.2 (1.3 where Windows has it), the pin (or -CaFile) in place, before the connection opens
    tls12 = join.index("[System.Net.ServicePointManager]::SecurityProtocol = $protocols")
    pinned = join.index("[TengigKit.Trust]::Install($CertSha256, $authority)")
    assert "$protocols = [System.Net.SecurityProtocolType]::Tls12" in join and tls12 < pinned < join.index(".ConnectAsync(")
    assert "Ssl3" not in script and "Tls11" not in script and "SecurityProtocolType]::Tls\n" not in script
    csharp = csharp_of(script)
    assert "ServicePointManager.ServerCertificateValidationCallback = Check;" in csharp
    check = csharp[csharp.index("private static bool Check("):csharp.index("public static class Share")]
    # with a pin, the certificate's SHA-256 over its DER (GetRawCertData) must be the pin, and nothing else counts
    assert "sha.ComputeHash(certificate.GetRawCertData())" in csharp and "if (seen == pin)" in check
    assert check.index("if (authority != null)") < check.index("if (pin.Length > 0)") < check.index(
        "if (errors == SslPolicyErrors.None)")
    assert "RemoteCertificateNameMismatch" in check and "own.ChainPolicy.ExtraStore.Add(authority);" in check


def test_a_ws_kit_has_no_fingerprint_and_a_wss_kit_without_one_is_not_made(tmp_path):
    assert "$CertSha256 = ''\n" in _kit()
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


def test_ca_file_is_a_parameter_checked_before_anything_connects():
    fns = _fns(_kit())
    join = text(fns["Invoke-Join"])
    assert join.index("if ($CaFile -and -not (Test-Path -LiteralPath $CaFile -PathType Leaf)) {") < join.index(
        ".ConnectAsync(")
    assert "$authority = if ($CaFile) { (Resolve-Path -LiteralPath $CaFile).ProviderPath } else { '' }" in join


# -- copies addressed by the name the credentials are saved under, or -Credential -----------------------

@pytest.mark.parametrize("nas, host", [("ws://nas.example.lan:8610", "nas.example.lan"), ("ws://10.0.0.1", "10.0.0.1"),
                                       ("ws://[fd00::1]:8610", "fd00--1.ipv6-literal.net")])
def test_the_copies_go_to_the_name_the_hint_tells_the_user_to_use(nas, host):
    script = _kit(nas)
    hint = how_to_run("tengig-join.ps1", nas, "media")
    assert f"`net use \\\\{host}\\media /user:NAME`" in hint and "-Credential NAME" in hint
    assert f"$ShareHost = '{host}'\n" in script
    assert f"`net use \\\\{host}\\media /user:NAME` first" in script  # the kit's own header says the same
    fns = _fns(script)
    smb = text(fns["Invoke-Smb"])
    assert "$unc = '\\\\' + (Get-ShareHost $smb.server) + '\\' + $smb.share" in smb
    # the name when it is the address the NAS asks for; the address otherwise, said with what to do
    share_host = text(fns["Get-ShareHost"])
    assert "$found = $ShareHost" in share_host and "[System.Net.Dns]::GetHostAddresses($NasHost)" in share_host
    assert "give -Credential NAME" in share_host
    # -Credential: the kit connects to that very UNC itself before any copy, and drops it at the end
    assert commands(fns["Invoke-Smb"]).index("Connect-Share") < commands(fns["Invoke-Smb"]).index("New-RandomFile")
    connect = text(fns["Connect-Share"])
    assert "[TengigKit.Share]::Connect($unc, $user, $network.Password)" in connect
    assert "[TengigKit.Guard]::Connected = $unc" in connect and "1219 {" in connect and "1326 {" in connect
    csharp = csharp_of(script)
    assert "WNetAddConnection2(resource, password, user, 0)" in csharp and "Share.Disconnect(Connected);" in csharp


def test_the_old_hint_with_placeholders_is_gone():
    hint = how_to_run("tengig-join.ps1", "ws://nas.example.lan:8610", "media")
    assert "\\\\NAS\\SHARE" not in hint and "\\\\NAS\\SHARE" not in _kit()


# -- reads into memory ----------------------------------------------------------------------------------

def _own_copy_line(script: str, op: str, size: int, seconds: float, how: str) -> str:
    """What Format-OwnCopy prints (its -f template filled as .NET fills it)."""
    [template] = re.findall(r"return \('(tengig-copy: \{0\} \{1\} bytes in \{2\} s \(\{3\}\))' -f", script)
    assert "'0.000000', [System.Globalization.CultureInfo]::InvariantCulture" in script  # 2.285312, never 2,285312
    return template.format(op, size, f"{seconds:.6f}", how)


def test_reads_go_into_memory_unbuffered_and_the_nas_reads_their_line():
    script = _kit()
    fns = _fns(script)
    smb = commands(fns["Invoke-Smb"])
    assert "Read-Share" in smb and smb.count("Invoke-Robocopy") == 1  # robocopy writes only (put)
    read = text(fns["Read-Share"])
    assert "New-Object TengigKit.UnbufferedReader $path" in read and "Step-Socket 0" in read
    [how] = re.findall(r"Format-OwnCopy 'get' \$total \$seconds '([^']*)'", read)
    size, seconds = 268435456, 2.285312
    line = _own_copy_line(script, "get", size, seconds, how)
    assert line == format_own_copy("get", size, seconds, "unbuffered, read into memory and discarded")
    assert parse_copy(["tengig-copy", r"\\nas\media\f0.dat"], line, direction="read",
                      expected_bytes=size).bytes_per_s == pytest.approx(size / seconds)
    csharp = csharp_of(script)
    reader = csharp[csharp.index("public sealed class UnbufferedReader"):csharp.index("public sealed class UnbufferedWriter")]
    assert "private const uint NoBuffering = 0x20000000;" in reader  # FILE_FLAG_NO_BUFFERING
    assert "NoBuffering | SequentialScan" in reader and "& ~(long)(Alignment - 1)" in reader  # aligned memory
    assert "Marshal.FreeHGlobal(memory);" in reader


def test_with_disk_the_kit_measures_its_own_disk_unbuffered_and_the_nas_reads_it():
    script = _kit()
    fns = _fns(script)
    assert "if ($kind -eq 'disk') { return (Invoke-OwnDisk $params) }" in text(fns["Invoke-Instruction"])
    assert "if ($Disk -ne '') { $info.disk = $true }" in text(fns["Get-JoinInfo"])
    own = text(fns["Invoke-OwnDisk"])
    assert commands(fns["Invoke-OwnDisk"])[:3] == ["Get-Int", "Stop-Refused", "Assert-Room"]  # before anything is written
    assert "Assert-Room $size 'instruction.size' $Disk '-Disk'" in own
    # its folder is the kit's to remove however the kit ends, and removed after the test
    assert own.index("[TengigKit.Guard]::AddWorkDir($folder)") < own.index("CreateDirectory($folder)")
    assert "Remove-Item -LiteralPath $folder -Recurse -Force" in own
    assert "New-Object TengigKit.UnbufferedWriter $path" in own and "New-Object TengigKit.UnbufferedReader $path" in own
    [put_how] = re.findall(r"Format-OwnCopy 'put' \$size \$started.Elapsed.TotalSeconds '([^']*)'", own)
    [get_how] = re.findall(r"Format-OwnCopy 'get' \$read \$started.Elapsed.TotalSeconds \('([^']*)' \+\s+'([^']*)'\)",
                           own)
    size = 256 * 1024 * 1024
    stdout = "\n".join([_own_copy_line(script, "put", size, 0.52, put_how),
                        _own_copy_line(script, "get", size, 0.49, "".join(get_how))]) + "\n"
    measured = parse_own_disk(["tengig-copy", r"D:\tengig-kit-disk-0\disk.dat"], stdout, "", size=size)
    assert measured.path == "D:\\"
    assert measured.method == "timed copy" and measured.how == "unbuffered (FILE_FLAG_NO_BUFFERING, write-through)"
    assert measured.write_bytes_per_s == pytest.approx(size / 0.52) and measured.read_bytes_per_s == pytest.approx(size / 0.49)
    writer = csharp_of(script)[csharp_of(script).index("public sealed class UnbufferedWriter"):]
    assert "private const uint WriteThrough = 0x80000000;" in writer and "NoBuffering | WriteThrough" in writer
    assert "Marshal.Copy(random, 0, aligned, ChunkBytes);" in writer  # random bytes, in aligned memory


# -- every tool killed, every work file removed, however the kit ends ------------------------------------

def _struct_fields(csharp: str, name: str) -> list[tuple[str, str]]:
    body = csharp[csharp.index(f"private struct {name}"):]
    body = body[:body.index("}")]
    return re.findall(r"public (\w+) (\w+);", body)


def test_the_job_objects_limits_have_windows_layout():
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION as the kit declares it, laid out as on 64-bit Windows (the
    same alignment as here): 144 bytes, the kill-on-close flag at offset 16, as winnt.h has it."""
    csharp = csharp_of(_kit())
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


def test_every_tool_dies_and_every_work_file_goes_however_the_kit_ends():
    script = _kit()
    fns = _fns(script)
    tool = text(fns["Invoke-Tool"])
    # each tool joins the kit's job right after it starts (Windows kills the job's processes when the kit's
    # process ends, even killed), and its instruction's finally stops it (Ctrl-C, the NAS gone, an error)
    assert tool.index("[System.Diagnostics.Process]::Start($start)") < tool.index("[TengigKit.Guard]::Adopt($process)")
    assert tool.index("[TengigKit.Guard]::Adopt($process)") < tool.index(".ReadToEndAsync()")
    assert re.search(r"\} finally \{\n\s+Stop-Tool", tool)
    join = commands(fns["Invoke-Join"])
    assert join.index("Import-KitHelpers") < join.index("Test-Iperf3")  # the job exists before any tool runs
    assert "[TengigKit.Guard]::Begin($script:Staging)" in text(fns["Invoke-Join"])
    # the script's finally (success, error, the NAS's end, Ctrl-C): the tool, the socket, the job, the files
    tail = script[script.rindex("\ntry {\n    Invoke-Join"):]
    steps = ["} finally {", "Stop-Tool", "$script:Ws.Dispose()", "[TengigKit.Guard]::End()",
             "Remove-Item -LiteralPath $script:Staging -Recurse -Force"]
    at = [tail.find(step) for step in steps]
    assert -1 not in at and at == sorted(at), at
    csharp = csharp_of(script)
    guard = csharp[csharp.index("public static class Guard"):csharp.index("public sealed class UnbufferedReader")]
    # a close of the console window (2), log off (5), shut down (6): the same end, from Windows' own thread
    assert "SetConsoleCtrlHandler(handler, true);" in guard and "if (controlType >= 2)" in guard
    end = guard[guard.index("public static void End()"):]
    assert end.index("TerminateJobObject(job, 1)") < end.index("Directory.Delete(folder, true)")
    assert "foreach (string folder in workDirs)" in end
    assert "tool.Kill();" in end and "Share.Disconnect(Connected);" in end
    assert "limits.Basic.LimitFlags = KillOnJobClose;" in guard
    # the random file written to copy is removed if writing it fails
    assert "Remove-Item -LiteralPath $path -Force" in text(fns["New-RandomFile"])


# -- checked before joining: iperf3.exe runs, -WorkDir has room -----------------------------------------

def test_iperf3_and_the_free_space_are_checked_before_joining():
    script = _kit()
    fns = _fns(script)
    join = text(fns["Invoke-Join"])
    connect = join.index(".ConnectAsync(")
    assert join.index("Test-Iperf3") < connect
    assert join.index("if (-not $NoSmb) { Assert-Room $SmallestCopyBytes '-WorkDir' }") < connect
    assert f"$SmallestCopyBytes = [long]{SMB_MIN_COPY}  #" in script  # the smallest file a run copies
    probe = text(fns["Test-Iperf3"])
    assert "Invoke-Tool @($Iperf3, '--version') 30" in probe and "'\\Aiperf 3\\.'" in probe
    assert "if ($probe.exit_code -eq $StatusDllNotFound) {" in probe and "cygwin1.dll" in probe
    [status] = re.findall(r"\$StatusDllNotFound = (-\d+)  #", script)
    assert int(status) == ctypes.c_int32(0xC0000135).value  # STATUS_DLL_NOT_FOUND as Process.ExitCode has it
    assert "-Iperf3: there is no $Iperf3" in probe


# -- the error's cause, not "One or more errors occurred." -----------------------------------------------

def test_errors_are_shown_down_to_their_cause():
    script = _kit()
    fns = _fns(script)
    error = text(fns["Format-Error"])
    assert "for ($e = $exception; $null -ne $e; $e = $e.InnerException) {" in error
    assert "[System.AggregateException]" in error and "[System.Management.Automation.MethodInvocationException]" in error
    assert "[TengigKit.Trust]::Refused" in error  # why the certificate was refused
    # wherever the kit reports a failure it did not word itself, the cause goes through Format-Error
    reported = re.findall(r"\$\(\$_\.Exception\.Message\)", script)
    assert len(reported) == 2 and all("refused: " in line for line in re.findall(
        r".*\$\(\$_\.Exception\.Message\).*", script))  # Invoke-Instruction's own refusals only
    assert "Format-Error" in commands(fns["Invoke-Tool"]) and "Format-Error" in commands(fns["Read-Share"])
