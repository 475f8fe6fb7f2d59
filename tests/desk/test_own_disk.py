"""The desktop's own disk as the target to beat (`tengig client join --disk PATH`, issue 26 item 3): the desktop
writes then reads one file of the SMB copies' size with the cache kept out (fio when present, else its own
timed copy), the NAS reads that (bench/join/own_disk.py) and judges SMB against it beside the run's target."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tengig.bench.join import own_disk as nas_side
from tengig.bench.join.own_disk import OwnDisk, own_disk_target, parse_own_disk
from tengig.desk import beneath, own_disk
from tengig.errors import ToolOutputError
from tengig.runner import Completed, Runner
from tengig.units import MB, MiB
from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts

from .hostile_nas import HostileNas

SIZE = 8 * MiB


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "source.dat"
    path.write_bytes(os.urandom(SIZE))
    return path


def test_fio_measures_the_disk_and_the_nas_reads_its_json(tmp_path, source):
    disk = tmp_path / "disk"
    disk.mkdir()
    sub = own_disk.measure(Runner(), disk, SIZE, source)
    assert sub["exit_code"] == 0 and sub["argv"][0] == "fio" and "--direct=1" in sub["argv"], sub
    measured = parse_own_disk(sub["argv"], sub["stdout"], sub["stderr"], size=SIZE)
    assert measured.method == "fio" and measured.file_size == SIZE and measured.path == str(disk)
    assert measured.read_bytes_per_s > 0 and measured.write_bytes_per_s > 0
    assert list(disk.iterdir()) == []  # the file is gone


def test_without_fio_the_desktops_own_timed_copy_measures_it(tmp_path, source, monkeypatch):
    disk = tmp_path / "disk"
    disk.mkdir()
    monkeypatch.setattr(own_disk.shutil, "which", lambda name: None)
    sub = own_disk.measure(Runner(), disk, SIZE, source)
    assert sub["exit_code"] == 0 and sub["argv"][0] == "tengig-copy" and sub["stderr"] == "fio not used: fio is not on PATH"
    lines = sub["stdout"].splitlines()
    assert lines[0].startswith(f"tengig-copy: put {SIZE} bytes in ") and lines[1].startswith(f"tengig-copy: get {SIZE} ")
    measured = parse_own_disk(sub["argv"], sub["stdout"], sub["stderr"], size=SIZE)
    assert measured.method == "timed copy" and measured.how == "unbuffered (O_DIRECT)" and measured.path == str(disk)
    assert list(disk.iterdir()) == []


class FioRefusesDirectIo:
    """fio as it answers on a file system without direct I/O."""

    def run(self, argv, **_):
        return Completed(tuple(argv), 1, "", "fio: looks like your file system does not support direct=1/buffered=0", 0.0)


def test_a_file_system_without_direct_io_falls_back_to_the_timed_copy_and_says_how(tmp_path, source, monkeypatch):
    disk = tmp_path / "disk"
    disk.mkdir()
    real_open = os.open

    def no_direct(path, flags, *args, **kwargs):
        if flags & os.O_DIRECT:
            raise OSError(22, "Invalid argument")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(beneath.os, "open", no_direct)
    sub = own_disk.measure(FioRefusesDirectIo(), disk, SIZE, source)
    assert sub["exit_code"] == 0 and sub["argv"][0] == "tengig-copy"
    assert sub["stderr"] == "fio not used: fio: looks like your file system does not support direct=1/buffered=0"
    measured = parse_own_disk(sub["argv"], sub["stdout"], sub["stderr"], size=SIZE)
    assert measured.how == "cached, fsynced, then its cached pages dropped"
    assert list(disk.iterdir()) == []


def test_the_directory_measured_in_is_the_one_the_desktop_was_given():
    assert nas_side.measured_in("/home/ana/tengig-disk-x1y2.dat") == "/home/ana"
    assert nas_side.measured_in(r"D:\bench\tengig-kit-disk-5f0c\disk.dat") == "D:\\bench"  # the kit's folder in -Disk


def test_what_the_nas_cannot_read_is_refused_in_words(tmp_path):
    with pytest.raises(ToolOutputError, match=r"with 'dd': tengig reads fio and tengig-copy only"):
        parse_own_disk(["dd", "if=/dev/zero"], "", "", size=SIZE)
    half = f"tengig-copy: put {SIZE // 2} bytes in 0.1 s (unbuffered (O_DIRECT))\n"
    with pytest.raises(ToolOutputError, match=r"copied 4194304 bytes, expected 8388608"):
        parse_own_disk(["tengig-copy", "/d/x"], half + half.replace("put", "get"), "", size=SIZE)


def test_the_verdict_compares_smb_with_the_measured_disk_naming_it():
    disk = OwnDisk(path="/home/ana", file_size=256 * MiB, method="fio", how="direct I/O (fio --direct=1)",
                   write_bytes_per_s=480.1 * MB, read_bytes_per_s=512.3 * MB)
    target = own_disk_target("desk", disk)
    assert target.name == "own-disk-desk" and not target.builtin
    ceilings = [Ceiling(component="smb", direction=d, bytes_per_s=110.3 * MB, provenance="measured", label="smb")
                for d in ("read", "write")]
    verdict = judge(target, ceilings, Facts())
    assert verdict.summary.startswith("Against desk's own disk (/home/ana), measured here: 512.3 MB/s read, "
                                      "480.1 MB/s write: SMB read 110.3 MB/s loses to 512.3 MB/s"), verdict.summary


def test_a_desktop_joined_with_disk_measures_when_asked_and_one_without_refuses(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    with HostileNas([("disk", {"size": SIZE})]) as nas:
        done = nas.join(tmp_path, "--disk", str(disk), "--workdir", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert nas.joined[0]["disk"] is True and nas.joined[0]["smb"] is False
    sub = nas.submitted[1]
    assert parse_own_disk(sub["argv"], sub["stdout"], sub["stderr"], size=SIZE).file_size == SIZE
    assert list(disk.iterdir()) == [] and not list(tmp_path.glob("tengig-smb-*.dat"))
    with HostileNas([("disk", {"size": SIZE}), ("disk", {"size": 1})]) as nas:
        done = nas.join(tmp_path)
    assert "disk" not in nas.joined[0] and nas.submitted[1]["stderr"] == "refused: this desktop joined without --disk"
    assert nas.submitted[2]["stderr"].startswith("refused: instruction.size: 1 is not a whole number")


def test_the_nas_side_module_is_what_the_suite_uses():
    from tengig.bench.join import joined_disk
    assert joined_disk.parse_own_disk is nas_side.parse_own_disk
