"""What the Windows kit prints, run by the vendored pwsh and read by the NAS's own parsers: its small-file
batches (tengig's own timer's lines), its own copies' lines, and the recorded-looking fixture the replay sends
as the kit's own format calls print it. And the whole kit, as a person runs it (`pwsh -File tengig-join.ps1`),
joining a real `tengig serve` over wss:// with the certificate it was made for, and refusing another."""
from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

from tengig.bench.join.session import SESSIONS
from tengig.bench.parse.copy_parse import parse_copy
from tengig.bench.join.own_disk import parse_own_disk
from tengig.bench.parse.smallfiles_parse import parse_smallfiles
from tengig.bench.phases.smallfiles_results import op_result
from tengig.desk.kit import render_kit
from tengig.desk.smallfiles import file_names
from tengig.errors import ToolOutputError
from tengig.join_protocol.limits import LONGEST_SECONDS, SMALL_SIZE_LIMITS
from tengig.join_protocol.lines import OWN_TIMER, own_file_line, stamped
from tengig.join_protocol.lines import SMALL_BATCH_OPS as SMALL_OPS
from tests.desk.wss_nas import wss_nas

from .pwsh import pwsh_argv, pwsh_env, run_pwsh, vendor_archive

pytestmark = pytest.mark.skipif(vendor_archive() is None, reason="the vendored PowerShell is not here (set "
                                "TENGIG_VENDOR_DIR to the vendor directory)")
FIX = Path(__file__).parent / "fixtures"
TOKEN = "tgb-" + "0123456789abcdef" * 3


def _kit_file(folder: Path, nas: str = "ws://127.0.0.1:8610", fingerprint: str = "") -> Path:
    path = folder / "tengig-join.ps1"
    path.write_text(render_kit(os_name="windows", nas=nas, token=TOKEN, share="media", fingerprint=fingerprint))
    return path


def _in_kit(folder: Path, parts: dict[str, tuple[str, dict[str, str]]]) -> dict:
    """Each part's ``body`` run by one pwsh with the kit dot-sourced, one after the other, each with a $Kit made
    for it (``options``: its parameters): what each returned, as JSON, by the part's name (``{"error": why}``
    where it threw). One PowerShell for them all: each start, with the kit's C# compiled, costs 3-4 CPU-s."""
    kit = _kit_file(folder)
    lines = [f". '{kit}'", "function Write-Host { }", "$answers = [ordered]@{}"]  # what the kit says: not in the JSON
    for name, (body, options) in parts.items():
        given = "; ".join(f"{k} = '{v}'" for k, v in options.items())
        lines += [f"$answers['{name}'] = & {{ try {{",
                  f"  $Kit = New-KitContext $KitConfig @{{ {given} }} $KitHelpers\n  Import-KitHelpers $Kit",
                  "  $Kit.NasAddresses = @('127.0.0.1')",
                  f"  & {{ {body} }}",
                  "} catch { @{ error = \"$_\" } } }"]
    lines.append("ConvertTo-Json -Depth 6 -InputObject $answers")
    done = run_pwsh(["-Command", "\n".join(lines)], cwd=folder, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _answer(kit_parts: dict, name: str):
    answer = kit_parts["answers"][name]
    assert not (isinstance(answer, dict) and set(answer) == {"error"}), f"the kit's {name} part threw: {answer}"
    return answer


@pytest.fixture(scope="module")
def kit_parts(tmp_path_factory) -> dict:
    """The kit's own work these tests read, in one pwsh: its four small-file batches on 200 files of 4 KiB in a
    folder (as through a mounted share), its own copies and -Disk, and its format calls under a German culture
    (last: the culture stays set). {answers: each part's, folders: where each worked}."""
    root = tmp_path_factory.mktemp("kit-parts")
    small, share, disk, work = (root / "small", root / "share", root / "disk", root / "work")
    for folder in (small, share, disk, work):
        folder.mkdir()
    batches = ("$Kit.Small = New-Object TengigKit.SmallSet -ArgumentList 4096, 200\n"
               "$o = [ordered]@{}\n"
               "foreach ($op in @('write', 'stat', 'read', 'delete')) {\n"
               f"  $r = Invoke-SmallBatches $Kit @($op) '{small / 'small-4096'}'\n"
               "  if ($r.exit_code -ne 0) { throw $r.stderr }\n"
               "  $o[$op] = $r.stdout }\n"
               "$o")
    copies = (
        "function Assert-Room { }\n"  # the test machine's free space is not the question here
        "$p = @{ server = '127.0.0.1'; share = 'media'; size = 1048576 }\n"
        "$prep = Invoke-Smb $Kit ([pscustomobject](@{ op = 'prepare'; remote = 'tengig-bench-1-1-desk' } + $p))\n"
        "$put = Invoke-Smb $Kit ([pscustomobject](@{ op = 'put'; remote = 'tengig-bench-1-1-desk\\f0.dat' } + $p))\n"
        "$get = Invoke-Smb $Kit ([pscustomobject](@{ op = 'get'; remote = 'tengig-bench-1-1-desk\\f0.dat' } + $p))\n"
        "$own = Invoke-OwnDisk $Kit ([pscustomobject]@{ size = 1048576 })\n"
        "Stop-KitRun $Kit\n"
        "@{ put = $put; get = $get; own = $own }")
    longest, size = LONGEST_SECONDS, SMALL_SIZE_LIMITS[1]
    formats = (
        "[System.Threading.Thread]::CurrentThread.CurrentCulture = 'de-DE'\n"
        f"$fix = Get-Content -LiteralPath '{FIX / 'kit-smallfiles-write-4KiB.txt'}' | Where-Object {{ $_ -notlike '# *' }}\n"
        "$inv = [System.Globalization.CultureInfo]::InvariantCulture\n"
        "$out = foreach ($line in $fix) {\n"
        "  $at, $rest = $line.Split(' ', 2)\n"
        "  if ($rest -match '^(\\S+): file (\\S+) (\\d+) open=(\\S+) io=(\\S+) close=(\\S+)$') {\n"
        "    $rest = [TengigKit.SmallSet]::FileLine($Matches[1], $Matches[2], [long]$Matches[3], [double]::Parse($Matches[4], $inv),"
        " [double]::Parse($Matches[5], $inv), [double]::Parse($Matches[6], $inv)) }\n"
        "  $clock = New-Object System.Diagnostics.Stopwatch\n"
        "  [TengigKit.SmallSet]::Stamp($clock, $rest).Replace('0.000000 ', \"$at \") }\n"
        f"$long = [TengigKit.SmallSet]::FileLine('{OWN_TIMER}', [TengigKit.SmallSet]::Name(99999), {size}, {longest}, {longest}, {longest})\n"
        "@{ lines = @($out); longest = $long }")
    answers = _in_kit(root, {"batches": (batches, {}),
                             "copies": (copies, {"ShareMount": str(share), "WorkDir": str(work), "Disk": str(disk)}),
                             "formats": (formats, {})})
    return {"answers": answers, "folders": {"small": small, "share": share, "disk": disk, "work": work}}


@pytest.fixture(scope="module")
def batches(kit_parts) -> dict[str, str]:
    """The kit's four batches (kit_parts), each op's stdout."""
    return _answer(kit_parts, "batches")


def test_the_nas_reads_the_kits_small_file_batches_with_tengigs_own_parser(batches):
    for op in SMALL_OPS:
        timing = parse_smallfiles(OWN_TIMER, batches[op], op, expected=200)
        assert timing.files == 200 and len(timing.opens) == len(timing.closes) == 200
        assert timing.seconds >= sum(timing.per_file)
        assert op_result(timing, 4096).files_per_s > 0
        if op == "read":
            assert timing.bytes_read == 200 * 4096
    names = [line.split(" file ")[1].split(" ")[0] for line in batches["write"].splitlines() if " file " in line]
    assert names == file_names(200)  # the files the Linux desktop names alike


@pytest.mark.parametrize("breakage, message", [
    (lambda out: "\n".join(line for line in out.split("\n") if " f00003.bin " not in line),
     r"handled 199 file\(s\), the NAS asked for 200"),
    (lambda out: out.replace(": end read", ": end rea"), r"printed no whole read batch \(its start and end lines\)"),
    # what .NET prints in a German culture without InvariantCulture: not a time the NAS takes
    (lambda out: out.replace(" open=0.", " open=0,", 1), r"handled 199 file\(s\), the NAS asked for 200"),
], ids=["a file missing", "no end mark", "a comma for a point"])
def test_a_bad_kit_batch_is_refused_with_a_clear_message(batches, breakage, message):
    broken = breakage(batches["read"])
    assert broken != batches["read"]
    with pytest.raises(ToolOutputError, match=message):
        parse_smallfiles(OWN_TIMER, broken, "read", expected=200)


def test_the_fixture_and_the_longest_line_are_what_the_kits_format_calls_print(kit_parts):
    """fixtures/kit-smallfiles-write-4KiB.txt (the replay sends it), line for line as the kit's own
    SmallSet.Stamp and FileLine print its numbers, under a German culture; and the longest line the NAS's
    count bound is computed from (bench/phases/smallfiles_plan.py) is the kit's, byte for byte."""
    lines = [ln for ln in (FIX / "kit-smallfiles-write-4KiB.txt").read_text().splitlines() if not ln.startswith("# ")]
    longest, size = LONGEST_SECONDS, SMALL_SIZE_LIMITS[1]
    got = _answer(kit_parts, "formats")
    assert got["lines"] == lines
    assert stamped(longest, got["longest"]) == stamped(longest, own_file_line("f99999.bin", size, longest, longest,
                                                                              longest))
    assert parse_smallfiles(OWN_TIMER, "\n".join(lines) + "\n", "write", expected=200).files == 200


def test_the_nas_reads_the_kits_own_copies_and_its_own_disk(kit_parts):
    got, folders = _answer(kit_parts, "copies"), kit_parts["folders"]
    for op, direction in (("put", "write"), ("get", "read")):
        sub = got[op]
        assert sub["exit_code"] == 0, sub
        assert parse_copy(sub["argv"], sub["stdout"], direction=direction, expected_bytes=1048576).bytes == 1048576
    own = got["own"]
    measured = parse_own_disk(own["argv"], own["stdout"], "", size=1048576)
    assert measured.write_bytes_per_s > 0 and measured.read_bytes_per_s > 0
    assert list(folders["disk"].iterdir()) == []  # its folder removed
    assert not list(folders["work"].glob("tengig-kit-*"))  # and its staging


def _strace_lines(trace) -> list[str]:
    """strace -f's lines as "PID call...": it pads a PID to its widest (two spaces after a 4-digit one)."""
    return [" ".join(line.split(None, 1)) for line in trace.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> dict:
    """One pwsh under strace (openat, ftruncate, close, fadvise64) with the kit loaded: Platform.Create over an
    older file of 64 KiB (3 bytes written), then the UnbufferedReader reading another; {lines, create, read,
    stdout}: strace's lines and the two files."""
    tmp = tmp_path_factory.mktemp("kit-traced")
    kit = _kit_file(tmp)
    create, read = tmp / "older.dat", tmp / "read-me.dat"
    create.write_bytes(b"x" * 65536)
    read.write_bytes(b"x" * 65536)
    trace = tmp / "strace.txt"
    script = (f". '{kit}'\n$Kit = New-KitContext $KitConfig @{{}} $KitHelpers\nImport-KitHelpers $Kit\n"
              f"$s = [TengigKit.Platform]::Create('{create}', 'None', 'WriteThrough')\n"
              "$s.Write([byte[]](1, 2, 3), 0, 3)\n$s.Dispose()\n"
              f"$r = New-Object TengigKit.UnbufferedReader '{read}'\n$got = $r.Read(1048576)\n$r.Dispose()\n$got")
    done = subprocess.run(["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=openat,ftruncate,close,fadvise64",
                           "-o", str(trace), *pwsh_argv(), "-NoProfile", "-NonInteractive", "-Command", script],
                          capture_output=True, text=True, env=pwsh_env(), timeout=300, cwd=tmp)
    assert done.returncode == 0, done.stdout + done.stderr
    return {"lines": _strace_lines(trace), "create": create, "read": read, "stdout": done.stdout}


def test_where_not_windows_the_kit_makes_a_file_afresh_without_ftruncate(traced):
    """The lab's mounted share (smbnetfs) answers ftruncate with EIO, and .NET's FileMode.Create on Linux opens
    with O_CREAT, then truncates with ftruncate: the kit's copies, own-disk writes and small files failed there
    (tests/desk/test_kit_lab.py found it). Platform.Create deletes an older file and makes the new one with
    O_EXCL: seen by strace, no ftruncate of that file, and the older file's bytes gone."""
    target, lines = traced["create"], traced["lines"]
    assert target.read_bytes() == b"\x01\x02\x03"
    (at,) = [i for i, line in enumerate(lines) if f'"{target}", O_WRONLY' in line]
    assert "O_CREAT|O_EXCL" in lines[at] and "O_TRUNC" not in lines[at], lines[at]
    fd = lines[at].rsplit("= ", 1)[1].strip()
    pid = lines[at].split(" ", 1)[0]
    until_close = []
    for line in lines[at + 1:]:
        if line.startswith(f"{pid} close({fd})"):
            break
        until_close.append(line)
    else:
        raise AssertionError(f"strace saw no close of fd {fd} by {pid}: {lines[at:][:40]}")
    assert not [line for line in until_close if line.startswith(f"{pid} ftruncate({fd},")], until_close


def test_where_not_windows_the_kit_drops_a_files_cached_pages_before_reading_it(traced):
    """Windows reads the copies and -Disk's file with FILE_FLAG_NO_BUFFERING; where not Windows the kit's
    reader drops the file's cached pages first (posix_fadvise DONTNEED), as tengig client join does where
    O_DIRECT is refused: on the lab its -Disk read came from memory (19 GB/s beside fio's 1.5 GB/s) before."""
    target, lines = traced["read"], traced["lines"]
    assert traced["stdout"].strip() == "65536", traced["stdout"]
    (opened,) = [line for line in lines if f'"{target}", O_RDONLY' in line]
    pid, fd = opened.split(" ", 1)[0], opened.rsplit("= ", 1)[1].strip()
    assert f"{pid} fadvise64({fd}, 0, 0, POSIX_FADV_DONTNEED) = 0" in lines, [ln for ln in lines if "fadvise" in ln]


# -- the whole kit, as a person runs it ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def wss(tmp_path_factory):
    with wss_nas(tmp_path_factory.mktemp("kit-wss")) as nas:
        yield nas


def _run_kit(kit: Path, tmp: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([*pwsh_argv(), "-NoProfile", "-NonInteractive", "-File", str(kit), "-NoSmb",
                             "-WorkDir", str(tmp), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=pwsh_env(), cwd=tmp)


def test_the_kit_joins_over_wss_trusting_the_certificate_it_was_made_for(wss, tmp_path):
    url, fingerprint = wss
    session, token = SESSIONS.create(1, join_timeout=120)
    kit = tmp_path / "tengig-join.ps1"
    kit.write_text(render_kit(os_name="windows", nas=url, token=token, share="media", fingerprint=fingerprint))
    desk = _run_kit(kit, tmp_path, "-Name", "ana-desk")
    try:
        assert session.wait_joined(threading.Event()), "the kit did not join"
        client = session.clients[0]
        assert (client.info.hostname, client.info.os, client.info.smb) == ("ana-desk", "linux", False)
        asked = session.post(client, "iperf3", {"server": "10.9.9.9", "port": 5201, "streams": 1, "seconds": 1,
                                                "omit": 0, "reverse": False})
        answer = session.wait_result(client, asked, timeout=120, cancel=threading.Event())
        assert answer.exit_code == 2 and answer.argv == []
        assert answer.stderr.startswith("refused: instruction.server: 10.9.9.9 is not the NAS this desktop joined")
    finally:
        session.end("finished")
    out, err = desk.communicate(timeout=120)
    assert desk.returncode == 0, err
    assert "[client] joined run" in out and "[client] the run is finished; its verdict is on the NAS" in out
    assert not list(tmp_path.glob("tengig-kit-*"))  # its work folder removed


def test_a_kit_made_for_another_certificate_is_refused_naming_both(wss, tmp_path):
    url, fingerprint = wss
    session, token = SESSIONS.create(1, join_timeout=5)
    kit = tmp_path / "tengig-join.ps1"
    kit.write_text(render_kit(os_name="windows", nas=url, token=token, share="media", fingerprint="AB" * 32))
    done = _run_kit(kit, tmp_path)
    out, err = done.communicate(timeout=120)
    session.end("finished")
    assert done.returncode == 1
    assert f"it presented a certificate with SHA-256 {fingerprint}, not the {'AB' * 32} this kit was made for" in err
    assert err.count("\n") == 1 and err.startswith("[client] error: ")  # one line
    assert session.clients == []
