"""robocopy's summary read by position and exit code, whatever language Windows prints it in
(bench/parse/robocopy_parse.py); the logs are under fixtures/ (see fixtures/README.md: written in robocopy's
layout from public material, not recorded on Windows). And the line a desktop prints for a copy it timed
itself (`tengig-copy`), which the kit's reads and a mounted share's copies submit."""
from __future__ import annotations

from pathlib import Path

import pytest

from tengig.bench.parse.copy_parse import parse_copy
from tengig.join_protocol.lines import format_own_copy
from tengig.errors import ToolOutputError

FIX = Path(__file__).parent / "fixtures"
SIZE = 256 * 1024 * 1024
ROBOCOPY = ["robocopy.exe", r"C:\Temp\tengig-kit-x\put", r"\\nas\media\tengig-bench-1-1-desk", "f0.dat", "/J", "/BYTES"]


def _log(name: str) -> str:
    text = (FIX / name).read_bytes().decode()
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("# "))


@pytest.mark.parametrize("name", ["robocopy-put-256MiB.txt", "robocopy-put-256MiB-de.txt"])
def test_a_copy_is_read_the_same_in_english_and_german(name):
    result = parse_copy(ROBOCOPY, _log(name), direction="write", expected_bytes=SIZE, exit_code=1)
    assert result.bytes == SIZE and result.bytes_per_s == 111848106
    assert result.seconds == pytest.approx(SIZE / 111848106)


def test_the_german_log_has_no_english_label_the_parser_could_lean_on():
    log = _log("robocopy-put-256MiB-de.txt")
    assert [word for word in ("Total", "Copied", "Dirs", "Files", "Times", "Speed", "FAILED") if word in log] == []
    assert "Geschwindigkeit:" in log and "Zeiten:" in log


@pytest.mark.parametrize("name, error", [
    ("robocopy-put-access-denied.txt", r"ERROR 5 \(0x00000005\) Copying File .* Access is denied\."),
    ("robocopy-put-access-denied-de.txt", r"FEHLER 5 \(0x00000005\) Datei wird kopiert .* Zugriff verweigert"),
])
def test_a_failed_file_is_refused_with_robocopys_own_error_in_its_language(name, error):
    with pytest.raises(ToolOutputError, match=r"robocopy reports 1 file\(s\) FAILED: " + error):
        parse_copy(ROBOCOPY, _log(name), direction="write", expected_bytes=SIZE, exit_code=8)


def test_the_exit_code_says_what_the_summary_would_hide():
    log = _log("robocopy-put-256MiB-de.txt")
    with pytest.raises(ToolOutputError, match=r"robocopy exited with 16 \(8 and up: a copy failed\)"):
        parse_copy(ROBOCOPY, log, direction="write", expected_bytes=SIZE, exit_code=16)
    with pytest.raises(ToolOutputError, match=r"robocopy exited with 0: it says it copied no file"):
        parse_copy(ROBOCOPY, log, direction="write", expected_bytes=SIZE, exit_code=0)
    assert parse_copy(ROBOCOPY, log, direction="write", expected_bytes=SIZE, exit_code=3).bytes == SIZE


@pytest.mark.parametrize("cut, reason", [
    # robocopy stopped before its summary (killed, or its output cut): nothing to read
    (lambda log: log[:log.index("Verzeich.:")], r"job summary is not in what it printed \(four rows"),
    # a summary whose bytes are not whole numbers: run without /BYTES
    (lambda log: log.replace("268435456 268435456", "  256.0 m   256.0 m"), r"bytes row \(Bytes\) is not 6 whole "
                                                                            r"numbers \(run it with /BYTES\)"),
    # no speed row after the times
    (lambda log: log[:log.index("Geschwindigkeit:")], r"printed no speed after its times row"),
    # a speed that is not a whole number of bytes (a locale's thousands separator)
    (lambda log: log.replace("111848106 Bytes/Sek.", "111.848.106 Bytes/Sek."), r"speed row \(Geschwindigkeit\) "
                                                                                r"is not a whole number"),
])
def test_a_log_that_truly_cannot_be_read_is_refused_naming_what_is_missing(cut, reason):
    with pytest.raises(ToolOutputError, match=reason):
        parse_copy(ROBOCOPY, cut(_log("robocopy-put-256MiB-de.txt")), direction="write", expected_bytes=SIZE,
                   exit_code=1)


def test_the_last_summary_of_a_log_is_the_jobs():
    earlier = _log("robocopy-put-access-denied-de.txt")
    result = parse_copy(ROBOCOPY, earlier + _log("robocopy-put-256MiB-de.txt"), direction="write",
                        expected_bytes=SIZE, exit_code=1)
    assert result.bytes_per_s == 111848106


def test_a_copy_the_desktop_timed_itself_is_read_from_its_line():
    line = format_own_copy("get", SIZE, 2.285312, "unbuffered, read into memory and discarded")
    assert line == f"tengig-copy: get {SIZE} bytes in 2.285312 s (unbuffered, read into memory and discarded)"
    result = parse_copy(["tengig-copy", r"\\nas\media\f0.dat"], "\n" + line + "\n", direction="read",
                        expected_bytes=SIZE)
    assert result.bytes == SIZE and result.seconds == 2.285312
    assert result.bytes_per_s == pytest.approx(SIZE / 2.285312)
    with pytest.raises(ToolOutputError, match=r"copied 268435456 bytes, expected 536870912"):
        parse_copy(["tengig-copy"], line, direction="read", expected_bytes=2 * SIZE)
    with pytest.raises(ToolOutputError, match=r"made a get, the NAS asked for a write"):
        parse_copy(["tengig-copy"], line, direction="write", expected_bytes=SIZE)
    with pytest.raises(ToolOutputError, match=r"printed no 'tengig-copy: OP N bytes in S s' line: Access denied"):
        parse_copy(["tengig-copy"], "Access denied", direction="read", expected_bytes=SIZE)
