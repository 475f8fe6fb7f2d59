"""`tengig client join --mount DIR` against a share whose content is hostile (the NAS, or another user of the
share, made it): symbolic links out of DIR, a FIFO, a link to a device, a file longer than asked. Beneath DIR
the desktop opens each component relative to its parent without following links (desk/beneath.py), refuses
anything that is not a regular file or a directory naming what it is, never blocks on an open, and reads at
most the bytes the NAS asked for. A scripted NAS (hostile_nas.py) asks; the real `tengig client join` runs."""
from __future__ import annotations

import os

import pytest

from tengig.desk import mounted_copy
from tengig.desk.beneath import Beneath
from tengig.units import MiB

from .hostile_nas import HostileNas

pytestmark = pytest.mark.abuse

SIZE = 4 * MiB
SMB = {"server": "127.0.0.1", "share": "share", "size": SIZE}
SCRATCH = "tengig-scratch-1-1-desk"
REMOTE = SCRATCH + "\\desk"
SMALL = {"server": "127.0.0.1", "share": "share", "remote": REMOTE, "size": 4096, "count": 4}


def _share(tmp_path):
    mount, outside = tmp_path / "share", tmp_path / "outside"
    (mount / SCRATCH).mkdir(parents=True)
    outside.mkdir()
    return mount, outside


def _copy(op: str) -> tuple[str, dict]:
    return ("smb", {**SMB, "op": op, "remote": REMOTE + ("" if op == "prepare" else "\\f0.dat")})


def _join(nas, tmp_path, mount):
    done = nas.join(tmp_path, "--mount", str(mount), "--workdir", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return done


def test_a_linked_directory_in_the_share_takes_no_file_out_of_it(tmp_path):
    mount, outside = _share(tmp_path)
    (mount / SCRATCH / "desk").symlink_to(outside)  # the client's directory, made a link by the NAS
    with HostileNas([_copy("prepare"), _copy("put")]) as nas:
        _join(nas, tmp_path, mount)
    assert list(outside.iterdir()) == [], "the desktop wrote outside the mount"
    prepared, put = nas.submitted[1], nas.submitted[2]
    assert prepared["exit_code"] == 1 and "is a symbolic link" in prepared["stderr"], prepared
    assert str(mount / SCRATCH / "desk") in prepared["stderr"]
    assert put["exit_code"] == 1 and "is a symbolic link" in put["stderr"], put


def test_a_linked_file_in_the_share_is_not_overwritten_through(tmp_path):
    mount, outside = _share(tmp_path)
    victim = outside / "secret"
    victim.write_text("the desktop's own file\n")
    victim.chmod(0o600)
    (mount / SCRATCH / "desk").mkdir()
    (mount / SCRATCH / "desk" / "f0.dat").symlink_to(victim)
    with HostileNas([_copy("prepare"), _copy("put")]) as nas:
        _join(nas, tmp_path, mount)
    assert victim.read_text() == "the desktop's own file\n"
    put = nas.submitted[2]
    assert put["exit_code"] == 1 and put["stderr"].startswith(f"cannot write {mount / SCRATCH / 'desk' / 'f0.dat'}: ")
    assert "is a symbolic link" in put["stderr"] and "tengig follows no link" in put["stderr"], put


@pytest.mark.parametrize("kind", ["link to /dev/zero", "FIFO", "device"])
def test_a_special_file_in_the_share_is_refused_without_blocking_or_reading(tmp_path, kind):
    mount, _ = _share(tmp_path)
    (mount / SCRATCH / "desk").mkdir()
    odd = mount / SCRATCH / "desk" / "f0.dat"
    if kind == "FIFO":
        os.mkfifo(odd)  # an open for reading would wait for a writer forever
    elif kind == "device":
        os.mknod(odd, 0o666 | 0o020000, os.makedev(1, 5))  # /dev/zero's own numbers: never ends
    else:
        odd.symlink_to("/dev/zero")
    with HostileNas([_copy("prepare"), _copy("put"), _copy("get")]) as nas:
        _join(nas, tmp_path, mount)
    said = {"link to /dev/zero": "is a symbolic link", "FIFO": "is a FIFO", "device": "is a character device"}[kind]
    for i in (2, 3):
        assert nas.submitted[i]["exit_code"] == 1 and said in nas.submitted[i]["stderr"], nas.submitted[i]
        assert "not a regular file" in nas.submitted[i]["stderr"] or "symbolic link" in said


def test_small_files_go_into_no_linked_directory(tmp_path):
    mount, outside = _share(tmp_path)
    (mount / SCRATCH / "desk").mkdir()
    (mount / SCRATCH / "desk" / "small-4096").symlink_to(outside)
    batches = [("smallfiles", {**SMALL, "op": op}) for op in ("prepare", "write", "stat", "read", "delete")]
    with HostileNas(batches) as nas:
        _join(nas, tmp_path, mount)
    assert list(outside.iterdir()) == [], "the desktop wrote small files outside the mount"
    for i in range(1, 6):
        sub = nas.submitted[i]
        assert sub["exit_code"] == 1 and "is a symbolic link" in sub["stderr"], sub
    assert (mount / SCRATCH / "desk" / "small-4096").is_symlink()  # the NAS's link left as it was


def test_small_files_that_are_links_are_neither_followed_nor_read(tmp_path):
    mount, outside = _share(tmp_path)
    victim = outside / "secret"
    victim.write_text("x" * 4096)
    small = mount / SCRATCH / "desk" / "small-4096"
    small.mkdir(parents=True)
    batches = [("smallfiles", {**SMALL, "op": "prepare"}), ("smallfiles", {**SMALL, "op": "write"})]
    with HostileNas(batches) as nas:
        (small / "f00002.bin").symlink_to(victim)  # planted before the write batch
        _join(nas, tmp_path, mount)
    assert victim.read_text() == "x" * 4096
    write = nas.submitted[2]
    assert write["exit_code"] == 1 and f"{small / 'f00002.bin'}: " in write["stderr"], write
    assert "is a symbolic link" in write["stderr"]
    # what the batch wrote before it is removed; the NAS's link is left
    assert sorted(p.name for p in small.iterdir()) == ["f00002.bin"]


def test_a_get_reads_at_most_the_size_asked(tmp_path, monkeypatch):
    longer = tmp_path / "f0.dat"
    longer.write_bytes(os.urandom(SIZE + 3 * MiB + 17))  # a file that goes on (a FUSE file may never end)
    read = []
    real_readv, real_read = os.readv, os.read

    def counted_readv(fd, buffers):
        got = real_readv(fd, buffers)
        read.append(got)
        return got

    def counted_read(fd, n):
        data = real_read(fd, n)
        read.append(len(data))
        return data

    monkeypatch.setattr(mounted_copy.os, "readv", counted_readv)
    monkeypatch.setattr(mounted_copy.os, "read", counted_read)
    line = mounted_copy.get(Beneath(tmp_path, ("f0.dat",)), SIZE + 17)
    assert line.startswith(f"tengig-copy: get {SIZE + 17} bytes in ")
    assert sum(read) == SIZE + 17
