"""The Windows kit, as a person runs it under pwsh, against the hostile NAS of hostile_nas.py: every
instruction `tengig client join` refuses, the kit refuses too, naming the same field, in words sent back to the
NAS, and it starts nothing (both run under strace: no iperf3, smbclient or robocopy started); the NAS's words
are shown with their control characters escaped."""
from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tengig.desk.instructions import MAX_FILE_BYTES
from tengig.desk.kit import render_kit
from tengig.units import MiB

from .hostile_nas import TOKEN, HostileNas, programs
from .pwsh import pwsh_argv, pwsh_env, vendor_archive
from .test_hostile_nas import ESCAPES

pytestmark = [pytest.mark.abuse, pytest.mark.skipif(vendor_archive() is None, reason="the vendored PowerShell is not "
                                                    "here (set TENGIG_VENDOR_DIR to the vendor directory)")]
ELSEWHERE = "127.0.0.2"
LOCAL = "127.0.0.1"
SMB = {"op": "prepare", "server": ELSEWHERE, "share": "media", "remote": "tengig-bench-1-1-desk", "size": 4 * MiB}
SMALL = {"op": "write", "server": LOCAL, "share": "media", "remote": "tengig-scratch-1-s\\desk", "size": 16777216,
         "count": 17}
IPERF3 = {"server": ELSEWHERE, "port": 5299, "streams": 1, "seconds": 1, "omit": 0, "reverse": False}
PEER = {"op": "connect", "server": "1.1.1.1", "port": 5201, "streams": 1, "seconds": 1, "omit": 0}
ASKED = [("iperf3", IPERF3), ("iperf3", {**IPERF3, "server": LOCAL, "port": "5299"}),
         ("smb", SMB), ("smb", {**SMB, "op": "put"}), ("smb", {**SMB, "server": LOCAL, "size": MAX_FILE_BYTES + MiB}),
         ("smb", {**SMB, "server": LOCAL, "remote": "..\\..\\Windows"}), ("smallfiles", SMALL),
         ("smallfiles", {**SMALL, "count": 10, "server": ELSEWHERE}), ("peer", PEER), ("peer", {"op": "exec"})]
TOOLS = ("iperf3", "iperf3.exe", "smbclient", "robocopy", "robocopy.exe")


def _tools(folder: Path) -> list[str]:
    return [p for p in programs(folder) if p.split(" ")[0].rsplit("/", 1)[-1] in TOOLS]


def _kit_join(nas: HostileNas, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    """pwsh -File tengig-join.ps1 against ``nas``, under strace (execve only), as HostileNas.join runs tengig."""
    kit = folder / "tengig-join.ps1"
    kit.write_text(render_kit(os_name="windows", nas=nas.url, token=TOKEN, share="media"))
    share = folder / "share"
    share.mkdir(exist_ok=True)
    argv = ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=execve", "-e", "signal=none", "-s", "256",
            "-o", str(folder / "desk.strace"), *pwsh_argv(), "-NoProfile", "-NonInteractive", "-File", str(kit),
            "-Name", "desk", "-WorkDir", str(folder), "-ShareMount", str(share), *extra]
    with subprocess.Popen(argv, env=pwsh_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _field(stderr: str) -> str:
    """'refused: instruction.server: ...' -> 'instruction.server'."""
    assert stderr.startswith("refused: "), stderr
    return stderr.split(": ")[1]


def test_the_kit_refuses_what_tengig_client_join_refuses_and_starts_nothing(tmp_path):
    (tmp_path / "py").mkdir()
    (tmp_path / "kit").mkdir()
    auth = tmp_path / "smb.auth"
    auth.write_text("username = ana\npassword = secret\n")
    with HostileNas(list(ASKED)) as nas:
        linux = nas.join(tmp_path / "py", "--smb-auth-file", str(auth), "--workdir", str(tmp_path / "py"))
        python = dict(nas.submitted)
    with HostileNas(list(ASKED)) as nas:
        windows = _kit_join(nas, tmp_path / "kit")
        kit = dict(nas.submitted)
    assert linux.returncode == 0, linux.stderr
    assert windows.returncode == 0, windows.stderr
    assert sorted(python) == sorted(kit) == list(range(1, len(ASKED) + 1))
    for i, (kind, params) in enumerate(ASKED, start=1):
        assert python[i]["exit_code"] == kit[i]["exit_code"] == 2, (kind, params, kit[i])
        assert kit[i]["argv"] == [], (kind, params)
        assert _field(kit[i]["stderr"]) == _field(python[i]["stderr"]), (kind, params, kit[i]["stderr"])
        assert len(kit[i]["stderr"]) > 40  # in words
        # the person at the desktop reads it too
        assert f"[client] {kit[i]['stderr'].splitlines()[0][:60]}" in windows.stdout
    assert _tools(tmp_path / "py") == []
    # the kit's only tool: its check, before joining, that iperf3 runs (strace saw it: the check sees programs)
    assert [p.split(" ", 1)[1] for p in _tools(tmp_path / "kit")] == ["--version"]
    assert list((tmp_path / "kit" / "share").iterdir()) == []  # nothing written for a copy that will not run
    assert not list((tmp_path / "kit").glob("tengig-kit-*"))


def test_the_nas_words_are_shown_with_control_characters_escaped(tmp_path):
    with HostileNas([("abort", {"reason": ESCAPES})], name="desk" + ESCAPES, nas_address="127.0.0.1" + ESCAPES) as nas:
        done = _kit_join(nas, tmp_path)
    assert done.returncode == 1
    shown = done.stdout + done.stderr
    assert [ch for ch in "\x1b\x07\u202e\x9b" if ch in shown] == [], repr(shown)
    assert "[client] error: the NAS stopped the run: \\x1b]0;owned\\x07\\x1b[2J\\u202egone\\x9b31m" in done.stderr
    assert "joined run 7 as desk\\x1b]0;owned" in done.stdout
