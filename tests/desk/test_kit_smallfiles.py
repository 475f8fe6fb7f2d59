"""The Windows kit's small-file test (issue 27, item 1), checked without Windows: the kit answers `smallfiles`
as `tengig client join` does (the same ops, limits, names and directory, the same refusals), times each file's
calls in its C# helper (.NET's FileStream and FileInfo, kernel32's unbuffered read and delete), and prints
tengig's own timer's lines, which the NAS's own parser reads (bench/parse/smallfiles_parse.py). The lines the
kit prints are rendered here from the kit's own format strings as .NET fills them; the recorded-looking
answer in fixtures/kit-smallfiles-write-4KiB.txt is checked against them (its README says how it was made)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tengig.bench.join.joined_smallfiles import _engine, small_tool
from tengig.bench.parse.smallfiles_parse import parse_smallfiles
from tengig.join_protocol.limits import LONGEST_SECONDS, SMALL_COUNT_LIMITS, SMALL_SIZE_LIMITS, SMALL_TOTAL_BYTES
from tengig.join_protocol.lines import OWN_TIMER, own_file_line, stamped
from tengig.join_protocol.lines import SMALL_BATCH_OPS as SMALL_OPS
from tengig.bench.phases.smallfiles_results import op_result
from tengig.desk.instructions import small_dir
from tengig.join_protocol.limits import SMALLFILES_OPS as DESK_OPS
from tengig.join_protocol.naming import CLIENT_DIR_RE
from tengig.desk.kit import ps_quote, render_kit
from tengig.desk.smallfiles import file_names
from tengig.errors import ToolOutputError

from .powershell import commands, csharp_of, functions, parse, parse_csharp, text
from .replay_cases import SMALL_DIR as UNC_DIR
from .replay_cases import SMALL_REMOTE

FIX = Path(__file__).parent / "fixtures"
TOKEN = "tgb-" + "0123456789abcdef" * 3


def _kit() -> str:
    return render_kit(os_name="windows", nas="ws://nas.example.lan:8610", token=TOKEN, share="media")


def _small_set(script: str) -> str:
    csharp = csharp_of(script)
    return csharp[csharp.index("public sealed class SmallSet"):]


def _net_format(template: str, *args) -> str:
    """String.Format(CultureInfo.InvariantCulture, template, args) for the two specifiers the kit uses:
    {N:0.000000} (six decimals, rounded, '.' whatever the desktop's language) and {N:D5} (five digits)."""
    python = re.sub(r"\{(\d+):0\.000000\}", r"{\1:.6f}", template)
    python = re.sub(r"\{(\d+):D5\}", r"{\1:05d}", python)
    assert ":" not in re.sub(r"\{\d+:(\.6f|05d)\}", "", python).replace(": file", ""), template
    return python.format(*args)


def _templates(script: str) -> dict[str, str]:
    """The kit's format strings: the time in front of each line, a file's line, a file's name."""
    small = _small_set(script)
    [stamp] = re.findall(r'string\.Format\(Invariant, "(\{0:0\.000000\} \{1\})"', small)
    [line] = re.findall(r'string\.Format\(Invariant, "(\{0\}: file [^"]+)"', small)
    [name] = re.findall(r'string\.Format\(Invariant, "(f\{0:D5\}\.bin)"', small)
    assert "private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;" in small
    return {"stamp": stamp, "line": line, "name": name}


def kit_batch(script: str, op: str, size: int, count: int, *, start: float = 0.25, skip: int | None = None) -> str:
    """What the kit prints for one batch, its times made up (each file 1.5 ms: open 0.6, io 0.1, close 0.8)."""
    t = _templates(script)
    out, at = [_net_format(t["stamp"], start, f"{OWN_TIMER}: start {op}")], start
    for i in range(count):
        at += 0.0015
        if i == skip:
            continue
        name = _net_format(t["name"], i)
        moved = size
        times = (0.0006, 0.0001, 0.0008) if op in ("write", "read") else (0.0015, 0.0, 0.0)
        out.append(_net_format(t["stamp"], at, _net_format(t["line"], OWN_TIMER, name, moved, *times)))
    out.append(_net_format(t["stamp"], at + 0.0001, f"{OWN_TIMER}: end {op}"))
    return "\n".join(out) + "\n"


# -- the kit answers `smallfiles`, checked as tengig client join checks it -------------------------------

def test_the_kit_answers_smallfiles_with_the_linux_desktops_ops_limits_and_names():
    script = _kit()
    parse_csharp(csharp_of(script))
    fns = functions(parse(script))
    assert "if ($kind -eq 'smallfiles') { return (Invoke-SmallFiles $params) }" in text(fns["Invoke-Instruction"])
    # the same constants as desk/instructions.py and the NAS's plan, written in from Python (they exist once)
    assert f"$OwnTimer = {ps_quote(OWN_TIMER)}\n" in script
    assert f"$SmallFilesOps = @({', '.join(ps_quote(op) for op in DESK_OPS)})\n" in script
    assert f"$SmallBatchOps = @({', '.join(ps_quote(op) for op in SMALL_OPS)})\n" in script
    assert f"$SmallSizeLimits = @({SMALL_SIZE_LIMITS[0]}, {SMALL_SIZE_LIMITS[1]})\n" in script
    assert f"$SmallCountLimits = @({SMALL_COUNT_LIMITS[0]}, {SMALL_COUNT_LIMITS[1]})\n" in script
    assert f"$SmallTotalBytes = [long]{SMALL_TOTAL_BYTES}\n" in script
    assert f"$ClientDirPattern = '\\A(?:' + {ps_quote(CLIENT_DIR_RE.pattern)} + ')\\z'\n" in script
    # the files' names and their directory in the share, as the Linux desktop names them
    names = [_net_format(_templates(script)["name"], i) for i in (0, 7, 4999)]
    assert names == [file_names(5000)[i] for i in (0, 7, 4999)]
    small = text(fns["Invoke-SmallFiles"])
    assert "$directory = $unc + '\\' + $small.remote + '\\small-' + $small.size" in small
    assert UNC_DIR == "\\\\10.250.12.1\\media\\" + small_dir(SMALL_REMOTE, 4096)


@pytest.mark.abuse
def test_every_value_of_a_smallfiles_instruction_is_checked_before_anything_runs():
    fns = functions(parse(_kit()))
    check = text(fns["Get-SmallFilesOp"])
    # op, share, directory, size and count, the total, then the server: each refused naming its field
    assert "@($SmallFilesOps) -ccontains $op" in check and "Stop-Refused 'instruction.op'" in check
    assert "Get-ShareName" in commands(fns["Get-SmallFilesOp"]) and "Get-ShareName" in commands(fns["Get-SmbOp"])
    assert "$shareName -cne $Share" in text(fns["Get-ShareName"])  # the kit's one share only
    assert "[regex]::IsMatch($remote, $ClientDirPattern)" in check and "Stop-Refused 'instruction.remote'" in check
    assert "Get-Int $params 'size' $SmallSizeLimits[0] $SmallSizeLimits[1]" in check
    assert "Get-Int $params 'count' $SmallCountLimits[0] $SmallCountLimits[1]" in check
    assert "if ($size * $count -gt $SmallTotalBytes) {" in check and "Stop-Refused 'instruction.count'" in check
    assert commands(fns["Get-SmallFilesOp"])[-1] == "Get-Address"  # against the NAS it joined only
    small = fns["Invoke-SmallFiles"]
    body = text(small)
    assert commands(small)[0] == "Get-SmallFilesOp"  # before anything is made, written or connected
    assert "stderr = 'refused: this desktop joined without -Disk'" in body
    assert "stderr = 'refused: this desktop joined without SMB (-NoSmb)'" in body
    # the share's files through its UNC path, with the credentials the copies use
    assert body.index("Connect-Share $unc") < body.index("New-ShareFolder $unc $directory")
    assert "New-ShareFolder" in commands(fns["Invoke-Smb"])  # one way to make a folder in the share


def test_nothing_is_left_behind_on_the_desktop_whatever_happens():
    fns = functions(parse(_kit()))
    small = text(fns["Invoke-SmallFiles"])
    # the files live in memory (nothing on -WorkDir); -Disk's copy in a folder of the kit's own, removed
    # after the batches, and by the kit's end however it ends
    assert "$script:Small = New-Object TengigKit.SmallSet -ArgumentList $small.size, $small.count" in small
    assert "Assert-Room (2 * $small.size * $small.count) 'instruction.size' $Disk '-Disk'" in small
    disk = small[small.index("$folder = Join-Path $Disk"):]
    assert disk.index("[TengigKit.Guard]::AddWorkDir($folder)") < disk.index("Invoke-SmallBatches $SmallBatchOps $folder")
    assert re.search(r"\} finally \{\n\s+\$left = Remove-KitFolder \$folder", disk)
    # what could not be removed from the user's own disk is said, and that batch fails with it (as
    # desk/smallfiles.py's own_run says "could not remove N: ...")
    assert re.search(r"if \(\$left -ne ''\) \{[^}]*Write-Say \$left[^}]*\$result\.exit_code = 1", disk)
    assert "$result.stderr = (@($result.stderr, $left) | Where-Object { $_ }) -join '; '" in disk
    remove = text(fns["Remove-KitFolder"])
    assert "-ErrorAction SilentlyContinue -ErrorVariable failed" in remove
    assert "if (-not (Test-Path -LiteralPath $folder)) { return '' }" in remove
    assert 'return "could not remove ${folder}: $why"' in remove
    batches = text(fns["Invoke-SmallBatches"])
    # a delete removes the directory too (it must be empty: what the NAS counts is what was there)
    assert "if ($ops -contains 'delete') { [System.IO.Directory]::Delete($directory, $false) }" in batches
    # a failure says which batch and why, with the lines so far
    assert 'stderr = "small files $op in ${directory}: $(Format-Error $_.Exception)"' in batches


def test_each_files_calls_are_timed_apart_with_net_file_apis():
    small = _small_set(_kit())
    write = small[small.index("case \"write\":"):small.index("case \"read\":")]
    # write: FileStream with no buffer of its own (every Write goes to Windows at once), timed as it opens,
    # writes and closes; Windows' own cache as an application's copy has it
    assert "new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1)" in write
    assert write.index("open = Lap(clock)") < write.index("stream.Write(data[i], 0, Size)") < write.index(
        "io = Lap(clock)") < write.index("stream.Dispose()") < write.index("close = Lap(clock)")
    read = small[small.index("case \"read\":"):small.index("case \"stat\":")]
    # read: unbuffered (from the share, not from what Windows kept of the write), one read of size + 1
    assert "CreateFile(path, GenericRead, ShareRead, IntPtr.Zero, OpenExisting, NoBuffering | SequentialScan" in read
    assert "ReadFile(handle, buffer.Aligned, (uint)buffer.Capacity, out got, IntPtr.Zero)" in read
    assert "new AlignedBuffer(Size + 1)" in small
    stat = small[small.index("case \"stat\":"):small.index("case \"delete\":")]
    assert "moved = new FileInfo(path).Length;" in stat
    delete = small[small.index("case \"delete\":"):]
    # DeleteFile fails on a file that is not there (File.Delete says nothing): a delete is a delete
    assert "if (!DeleteFile(path))" in delete
    assert small.count("throw Failed(path)") == 3  # CreateFile, ReadFile, DeleteFile: Windows' error, named
    assert "[DllImport(\"kernel32.dll\", SetLastError = true, CharSet = CharSet.Unicode)]" in small


# -- what the kit prints, read by the NAS --------------------------------------------------------------

def test_the_nas_reads_the_kits_batches_with_tengigs_own_parser():
    script = _kit()
    for op in SMALL_OPS:
        stdout = kit_batch(script, op, 4096, 200)
        argv = [OWN_TIMER, op, UNC_DIR]
        timing = parse_smallfiles(small_tool(argv), stdout, op, expected=200)
        assert timing.files == 200 and len(timing.opens) == len(timing.closes) == 200
        assert timing.seconds == pytest.approx(200 * 0.0015 + 0.0001, abs=1e-6)
        result = op_result(timing, 4096)
        assert result.files_per_s == pytest.approx(200 / timing.seconds)
        if op in ("write", "read"):
            assert result.open.p50_ms == pytest.approx(0.6) and result.close.p99_ms == pytest.approx(0.8)
        if op == "read":
            assert timing.bytes_read == 200 * 4096
    assert _engine([OWN_TIMER, "write", UNC_DIR]) == f"{OWN_TIMER} on the share's UNC path (Windows' SMB client)"
    assert _engine([OWN_TIMER, "write", "/Volumes/media/x"]) == f"{OWN_TIMER} on the mounted share"
    assert _engine(["stdbuf", "-oL", "-eL", "smbclient", "//nas/media"]) == "smbclient"


@pytest.mark.parametrize("breakage, message", [
    (lambda s: kit_batch(s, "read", 4096, 20, skip=3), r"handled 19 file\(s\), the NAS asked for 20"),
    (lambda s: kit_batch(s, "read", 4096, 20).replace(": end read", ": end rea"),
     r"printed no whole read batch \(its start and end lines\)"),
    # what .NET prints in a German culture without InvariantCulture: not a time the NAS takes
    (lambda s: kit_batch(s, "read", 4096, 20).replace("open=0.000600", "open=0,000600", 1),
     r"handled 19 file\(s\), the NAS asked for 20"),
], ids=["a file missing", "no end mark", "a comma for a point"])
def test_a_bad_kit_batch_is_refused_with_a_clear_message(breakage, message):
    stdout = breakage(_kit())
    with pytest.raises(ToolOutputError, match=message):
        parse_smallfiles(OWN_TIMER, stdout, "read", expected=20)


def _fixture_lines() -> list[str]:
    text_ = (FIX / "kit-smallfiles-write-4KiB.txt").read_text()
    return [line for line in text_.splitlines() if not line.startswith("# ")]


def test_the_fixture_is_what_the_kits_format_strings_print():
    """fixtures/kit-smallfiles-write-4KiB.txt (the replay sends it) line for line as the kit's String.Format
    calls print its own numbers."""
    t = _templates(_kit())
    lines = _fixture_lines()
    for line in lines:
        at, rest = line.split(" ", 1)
        assert _net_format(t["stamp"], float(at), rest) == line
        if m := re.fullmatch(rf"{OWN_TIMER}: file (\S+) (\d+) open=(\S+) io=(\S+) close=(\S+)", rest):
            name, moved, *times = m.groups()
            assert _net_format(t["line"], OWN_TIMER, name, int(moved), *map(float, times)) == rest
    timing = parse_smallfiles(OWN_TIMER, "\n".join(lines) + "\n", "write", expected=200)
    assert timing.files == 200 and min(timing.opens) > 0


def test_the_kits_longest_line_is_the_one_the_count_bound_is_computed_from():
    # join_protocol/limits.py bounds the count by the longest line tengig client join sends for a file;
    # the kit sends the same line, byte for byte, so its own-disk answer fits as well.
    t, longest, size = _templates(_kit()), LONGEST_SECONDS, SMALL_SIZE_LIMITS[1]
    kit = _net_format(t["stamp"], longest, _net_format(t["line"], OWN_TIMER, _net_format(t["name"], 99999), size,
                                                       longest, longest, longest))
    assert kit == stamped(longest, own_file_line("f99999.bin", size, longest, longest, longest))
