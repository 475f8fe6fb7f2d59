"""`tengig client join --mount PATH`: the copies go through a share this desktop has mounted (macOS's only
SMB client; a Linux desktop with a CIFS, FUSE or gvfs mount and no smbclient), timed by the desktop and
submitted as one `tengig-copy` line that the NAS reads (desk/mounted_copy.py, bench/parse/copy_parse.py). Here a
scripted NAS (hostile_nas.py) asks for the copies and a directory stands for the mount; the lab copies
through a real FUSE mount of the NAS's share (tests/bench/test_mounted_share_lab.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tengig.bench.parse.copy_parse import parse_copy
from tengig.desk import beneath, mounted_copy
from tengig.desk.beneath import Beneath
from tengig.units import MiB

from .hostile_nas import HostileNas, programs

SMB = {"server": "127.0.0.1", "share": "share", "size": 4 * MiB}
REMOTE = "tengig-scratch-1-1-desk\\desk"


def _copies(mount: Path) -> list[tuple[str, dict]]:
    return [("smb", {**SMB, "op": "prepare", "remote": REMOTE}),
            ("smb", {**SMB, "op": "put", "remote": REMOTE + "\\f0.dat"}),
            ("smb", {**SMB, "op": "get", "remote": REMOTE + "\\f0.dat"})]


def test_the_copies_go_through_the_mounted_share_and_the_nas_reads_them(tmp_path):
    mount = tmp_path / "share"
    (mount / "tengig-scratch-1-1-desk").mkdir(parents=True)  # the NAS's scratch place, as the share shows it
    with HostileNas(_copies(mount)) as nas:
        done = nas.join(tmp_path, "--mount", str(mount), "--workdir", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert nas.joined[0]["smb"] is True and f"copies go through the share mounted at {mount}" in done.stderr
    prepared, written, read = (nas.submitted[i] for i in (1, 2, 3))
    assert prepared["exit_code"] == 0 and prepared["argv"] == ["mkdir", str(mount / "tengig-scratch-1-1-desk" / "desk")]
    target = mount / "tengig-scratch-1-1-desk" / "desk" / "f0.dat"
    assert target.stat().st_size == 4 * MiB
    for sub, op, direction in ((written, "put", "write"), (read, "get", "read")):
        assert sub["exit_code"] == 0 and sub["argv"] == ["tengig-copy", str(target)], sub
        assert sub["stdout"].startswith(f"tengig-copy: {op} {4 * MiB} bytes in "), sub["stdout"]
        assert parse_copy(sub["argv"], sub["stdout"], direction=direction, expected_bytes=4 * MiB).bytes == 4 * MiB
    # the cache kept out: O_DIRECT where the file system takes it (tmp_path's does), said in the line
    assert "(unbuffered (O_DIRECT))" in written["stdout"]
    assert "unbuffered (O_DIRECT), read into memory and discarded" in read["stdout"]
    # nothing but the desktop's own Python ran: no smbclient, no ip
    assert programs(tmp_path)[1:] == []
    assert not list(tmp_path.glob("tengig-smb-*.dat"))  # the work file is gone


def test_where_o_direct_is_refused_the_copy_is_fsynced_and_its_cache_dropped(tmp_path, monkeypatch):
    source = tmp_path / "source.dat"
    source.write_bytes(os.urandom(3 * MiB))
    target = tmp_path / "f0.dat"
    real_open = os.open

    def no_direct(path, flags, *args, **kwargs):
        if flags & mounted_copy.O_DIRECT:
            raise OSError(22, "Invalid argument")  # EINVAL: as a file system without O_DIRECT answers
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(beneath.os, "open", no_direct)
    place = Beneath(tmp_path, ("f0.dat",))
    put = mounted_copy.put(source, place, 3 * MiB)
    assert put.endswith("(cached, fsynced, then its cached pages dropped)") and target.read_bytes() == source.read_bytes()
    get = mounted_copy.get(place, 3 * MiB)
    assert get.endswith("(cached, its cached pages dropped first, read into memory and discarded)")


def test_a_short_file_or_a_missing_one_is_a_failed_copy_in_words(tmp_path):
    short = tmp_path / "short.dat"
    short.write_bytes(b"x" * 4096)
    with pytest.raises(mounted_copy.MountedCopyError, match=r"holds 4096 bytes, the NAS asked for 8192"):
        mounted_copy.get(Beneath(tmp_path, ("short.dat",)), 8192)
    with pytest.raises(mounted_copy.MountedCopyError, match=r"cannot read .*missing.dat: No such file"):
        mounted_copy.get(Beneath(tmp_path, ("missing.dat",)), 8192)


def test_a_size_that_is_not_a_multiple_of_a_block_is_copied_whole(tmp_path):
    # O_DIRECT takes whole blocks only: the last piece of a size the NAS may ask for goes through the cache
    size = 3 * MiB + 17
    source = tmp_path / "source.dat"
    source.write_bytes(os.urandom(size))
    place = Beneath(tmp_path, ("f0.dat",))
    assert mounted_copy.put(source, place, size).endswith("(unbuffered (O_DIRECT))")
    assert (tmp_path / "f0.dat").read_bytes() == source.read_bytes()
    assert mounted_copy.get(place, size).startswith(f"tengig-copy: get {size} bytes in ")


def test_mount_and_smbclient_together_or_a_mount_that_is_not_a_directory_are_refused(tmp_path):
    auth = tmp_path / "smb.auth"
    auth.write_text("username = ana\npassword = x\n")
    with HostileNas([]) as nas:
        both = nas.join(tmp_path, "--mount", str(tmp_path), "--smb-auth-file", str(auth))
        not_dir = nas.join(tmp_path, "--mount", str(auth))
    assert both.returncode != 0 and "--mount" in both.stderr and "not both" in both.stderr
    assert not_dir.returncode != 0 and "--mount" in not_dir.stderr and nas.joined == []
