"""`tengig client join` against a hostile NAS (hostile_nas.py): the desktop runs its tools only against
the NAS it joined (the addresses its URL's host resolved to and the socket it connected to, plus those
the user lists with --nas-address), writes no file its disk cannot hold or bigger than a sane maximum,
and shows the NAS's words with their control characters escaped. Every refusal is in words, sent back
to the NAS, and nothing ran: the desktop runs under strace."""
from __future__ import annotations

import subprocess

import pytest

from tengig.client.client import Client
from tengig.join_protocol.limits import MAX_FILE_BYTES
from tengig.units import GiB, MiB

from .hostile_nas import HostileNas, programs

pytestmark = pytest.mark.abuse

ELSEWHERE = "127.0.0.2"  # loopback too, but not the address the desktop joined
IPERF3 = {"server": ELSEWHERE, "port": 5299, "streams": 1, "seconds": 1, "omit": 0, "reverse": False}
SMB = {"op": "prepare", "server": ELSEWHERE, "share": "share", "remote": "tengig-bench-1-1-desk", "size": 4 * MiB}
ESCAPES = "\x1b]0;owned\x07\x1b[2J\u202egone\x9b31m"


@pytest.fixture
def auth_file(tmp_path):
    path = tmp_path / "smb.auth"
    path.write_text("username = ana\npassword = secret\n")
    return path


def _tools(tmp_path) -> list[str]:
    return [p for p in programs(tmp_path) if p.split(" ")[0].rsplit("/", 1)[-1] in ("iperf3", "smbclient")]


def test_an_instruction_naming_another_host_is_refused_and_nothing_runs(tmp_path, auth_file):
    with HostileNas([("iperf3", IPERF3), ("smb", SMB), ("smb", {**SMB, "op": "put"})]) as nas:
        done = nas.join(tmp_path, "--smb-auth-file", str(auth_file), "--workdir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert _tools(tmp_path) == [], "the desktop ran a tool against a host that is not the NAS"
    assert sorted(nas.submitted) == [1, 2, 3]
    for answer in nas.submitted.values():
        assert answer["exit_code"] == 2 and answer["argv"] == []
        said = answer["stderr"]
        assert said.startswith("refused: instruction.server: 127.0.0.2 is not the NAS this desktop joined"), said
        assert "127.0.0.1" in said and "--nas-address 127.0.0.2" in said
    assert not list(tmp_path.glob("tengig-smb-*"))  # no file was written for a copy that will not run
    # the person at the desktop reads why, and what to do
    assert done.stderr.count("[client] refused: instruction.server: 127.0.0.2 is not the NAS") == 3, done.stderr


def test_a_peer_test_off_the_desktops_own_cables_is_refused_and_nothing_runs(tmp_path):
    """A mesh verify's peer instruction (desk/peer_rule.py): only the desktop's own cables (a /24 or narrower
    it is directly attached to; loopback's 127.0.0.0/8 is none), tengig's iperf3 ports, a bounded time."""
    listen = {"op": "listen", "bind": "127.0.0.1", "port": 5201, "seconds": 1, "omit": 0}
    connect = {"op": "connect", "server": ELSEWHERE, "port": 5201, "streams": 1, "seconds": 1, "omit": 0}
    asked = [(listen, "instruction.bind"), ({**listen, "bind": "0.0.0.0"}, "instruction.bind"),
             (connect, "instruction.server"), ({**connect, "server": "1.1.1.1"}, "instruction.server"),
             ({**connect, "port": 22}, "instruction."), ({**connect, "seconds": 3600}, "instruction."),
             ({"op": "exec", "argv": ["sh"]}, "instruction.op")]
    with HostileNas([("peer", params) for params, _ in asked] + [("peer", {"op": "served", "port": 5201})]) as nas:
        done = nas.join(tmp_path)
    assert done.returncode == 0, done.stderr
    assert _tools(tmp_path) == [], "the desktop ran iperf3 off its own cables"
    assert sorted(nas.submitted) == list(range(1, len(asked) + 2))
    for i, (_, field) in enumerate(asked, start=1):
        answer = nas.submitted[i]
        assert answer["exit_code"] == 2 and answer["argv"] == [] and answer["stderr"].startswith(f"refused: {field}")
    assert nas.submitted[len(asked) + 1]["stderr"] == "refused: no iperf3 server of this run on port 5201"


def test_an_address_the_user_listed_is_the_nas_too(tmp_path):
    with HostileNas([("iperf3", IPERF3)]) as nas:
        done = nas.join(tmp_path, "--nas-address", ELSEWHERE)
    assert done.returncode == 0, done.stderr
    assert [p.split(" ", 1)[1] for p in _tools(tmp_path)] == ["-c 127.0.0.2 -p 5299 -t 1 -O 0 -P 1 -J"]
    assert nas.submitted[1]["argv"][:3] == ["iperf3", "-c", ELSEWHERE]  # it ran (nothing listens there)


@pytest.mark.parametrize("listed", ["nas.example", "127.0.0.1/8", "fe80::1%';calc;'"])
def test_a_listed_address_that_is_not_an_ip_address_is_refused_naming_the_flag(tmp_path, listed):
    with HostileNas([]) as nas:
        done = nas.join(tmp_path, "--nas-address", listed)
    assert done.returncode == 2 and "--nas-address" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert nas.joined == []


def test_the_client_knows_the_address_its_connection_reached():
    """One of the NAS's addresses for the desktop, whatever the URL's name resolves to later."""
    with HostileNas([]) as nas, Client(f"{nas.url.replace('127.0.0.1', 'localhost')}/api/current") as client:
        assert client.peer_address in ("127.0.0.1", "::1")


def _tmpfs(path, size: str):
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tengig-test", str(path)], check=True)
    return path


@pytest.fixture
def small_disk(tmp_path):
    """A workdir on a 1200 MiB tmpfs (nothing written: no memory used): room for the smallest copy with the
    1 GiB left free, not for what a NAS may ask for."""
    yield _tmpfs(tmp_path / "small", "1200m")
    subprocess.run(["umount", str(tmp_path / "small")], check=True)


@pytest.fixture
def tiny_disk(tmp_path):
    yield _tmpfs(tmp_path / "tiny", "64m")
    subprocess.run(["umount", str(tmp_path / "tiny")], check=True)


def test_a_disk_without_room_for_the_smallest_copy_is_refused_before_joining(tmp_path, auth_file, tiny_disk):
    with HostileNas([("smb", {**SMB, "server": "127.0.0.1"})]) as nas:
        done = nas.join(tmp_path, "--smb-auth-file", str(auth_file), "--workdir", str(tiny_disk))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
    assert "--workdir: a file of 64 MiB does not fit in " in done.stderr and str(tiny_disk) in done.stderr
    assert nas.joined == [] and nas.submitted == {}  # said before joining, not once the NAS measures


def test_a_file_bigger_than_the_free_space_or_the_maximum_is_refused_before_writing(tmp_path, auth_file, small_disk):
    local = {**SMB, "server": "127.0.0.1"}
    with HostileNas([("smb", {**local, "size": 512 * MiB}), ("smb", {**local, "size": MAX_FILE_BYTES + MiB})]) as nas:
        done = nas.join(tmp_path, "--smb-auth-file", str(auth_file), "--workdir", str(small_disk))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    room, too_big = nas.submitted[1]["stderr"], nas.submitted[2]["stderr"]
    assert room.startswith("refused: instruction.size: a file of 512 MiB does not fit in "), room
    assert str(small_disk) in room and "free" in room and "--workdir" in room
    assert too_big.startswith("refused: instruction.size: "), too_big
    assert f"from 1048576 to {MAX_FILE_BYTES}" in too_big
    assert _tools(tmp_path) == [] and list(small_disk.iterdir()) == []


def test_the_maximum_file_is_64_gib():
    # the NAS asks for 64 MiB to 1 GiB (its presets); 2 x the ARC where it cannot keep the ARC out
    assert MAX_FILE_BYTES == 64 * GiB


def test_the_nas_words_are_shown_with_control_characters_escaped(tmp_path):
    with HostileNas([("abort", {"reason": ESCAPES})], name="desk" + ESCAPES, nas_address="127.0.0.1" + ESCAPES) as nas:
        done = nas.join(tmp_path)
    assert done.returncode == 1
    shown = done.stderr
    assert [ch for ch in "\x1b\x07\u202e\x9b" if ch in shown] == [], repr(shown)
    assert "the NAS stopped the run: \\x1b]0;owned\\x07\\x1b[2J\\u202egone\\x9b31m" in shown, shown
    assert "joined run 7 as desk\\x1b]0;owned" in shown, shown


@pytest.mark.parametrize("instructions, join_answer", [
    ([], {"session": 7}), ([], ["not", "a", "session"]), (["not an instruction"], None),
    ([{"id": 1, "kind": "iperf3"}], None), ([{"id": 1, "kind": "abort", "params": "\x1b]0;owned\x07"}], None),
])
def test_an_answer_that_is_not_the_join_protocol_stops_the_desktop_in_words(tmp_path, instructions, join_answer):
    with HostileNas(instructions, join_answer=join_answer) as nas:
        done = nas.join(tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "error: the NAS's answer is not " in done.stderr and "of tengig's join protocol" in done.stderr
    assert "\x1b" not in done.stderr and _tools(tmp_path) == []
