"""The NAS believes a desktop's own-disk figure only within a disk's reach (bench/join/own_disk.py): a figure
that is not a finite number, or faster than MAX_OWN_DISK_BYTES_PER_S, is refused in words, and the run notes
why the desktop's disk was not used (ClientReport.own_disk_note) instead of failing (pure: no desktop runs)."""
from __future__ import annotations

import json

import pytest

from tengig.bench.join import joined_disk
from tengig.bench.join.own_disk import MAX_OWN_DISK_BYTES_PER_S, measured_in, parse_own_disk
from tengig.join_protocol.messages import Submission
from tengig.join_protocol.naming import fio_filename, fio_path
from tengig.errors import ToolOutputError
from tengig.units import MiB

pytestmark = pytest.mark.abuse

SIZE = 8 * MiB


def _own_copy(seconds: str) -> tuple[list[str], str]:
    return (["tengig-copy", "/home/ana/tengig-own-disk-0a1b2c3d4e5f/disk.dat"],
            f"tengig-copy: put {SIZE} bytes in {seconds} s (unbuffered (O_DIRECT))\n"
            f"tengig-copy: get {SIZE} bytes in {seconds} s (unbuffered (O_DIRECT), read into memory and discarded)\n")


def _fio(runtime_ms: int, filename: str = "/home/ana/tengig-own-disk-0a1b2c3d4e5f/disk.dat") -> tuple[list[str], str]:
    jobs = [{"jobname": name, "error": 0, "read": {}, "write": {},
             name: {"io_bytes": SIZE, "runtime": runtime_ms, "iops": 1.0}} for name in ("write", "read")]
    return ["fio", "--output-format=json", f"--filename={filename}"], json.dumps({"fio version": "fio-3.33",
                                                                                "jobs": jobs})


def test_the_ceiling_is_a_generous_physical_one():
    assert MAX_OWN_DISK_BYTES_PER_S == 100e9  # 100 GB/s: above any desktop's storage, below a tool's nonsense


@pytest.mark.parametrize("argv, out, said", [
    (*_own_copy("1e-300"), "at most 100 GB/s"),  # 8e306 B/s: finite, and no disk's
    (*_own_copy("0.00001"), "at most 100 GB/s"),  # 839 GB/s
    (*_own_copy("1e-310"), "not a finite number"),  # infinite once divided
    (*_fio(0), "moved no bytes"),  # fio's runtime 0: nothing measured
])
def test_a_figure_no_disk_has_is_refused_in_words(argv, out, said):
    with pytest.raises(ToolOutputError, match=said):
        parse_own_disk(argv, out, "", size=SIZE)


def test_a_believable_figure_is_read_up_to_the_ceiling():
    argv, out = _fio(1)  # 8 MiB in 1 ms: 8.4 GB/s, a fast NVMe's
    disk = parse_own_disk(argv, out, "", size=SIZE)
    assert disk.read_bytes_per_s == SIZE / 0.001 and disk.path == "/home/ana"


class _Ctx:
    def __init__(self):
        self.said: list[str] = []

    def report(self, _percent, text):
        self.said.append(text)


class _Client:
    name = "desk"


@pytest.mark.parametrize("seconds", ["1e-300", "1e-310"])
def test_a_figure_the_nas_cannot_believe_is_a_note_not_a_failed_run(monkeypatch, seconds):
    argv, out = _own_copy(seconds)
    monkeypatch.setattr(joined_disk, "ask", lambda *a, **k: Submission(instruction=1, exit_code=0, stdout=out,
                                                                       argv=argv))
    disk, note = joined_disk.measure_joined_disk(_Ctx(), None, _Client(), SIZE)
    assert disk is None and note.startswith("desk's own disk: the desktop's tengig-copy "), note


def test_fios_file_name_is_exactly_the_one_meant_and_read_back_so():
    # fio splits --filename at ':' and takes '\:' as one ':' (fio 3.33; tests/desk/test_own_disk.py runs it)
    for path in ("/home/ana/a:b/disk.dat", "/mnt/x\\:y/disk.dat", "/plain/disk.dat"):
        assert fio_path(fio_filename(path)) == path
    assert fio_filename("/home/ana/a:b/disk.dat") == "/home/ana/a\\:b/disk.dat"
    argv, out = _fio(100, filename=fio_filename("/home/a:b/tengig-own-disk-0a1b2c3d4e5f/disk.dat"))
    assert parse_own_disk(argv, out, "", size=SIZE).path == "/home/a:b"
    assert measured_in("/home/ana/tengig-own-disk-0a1b2c3d4e5f/disk.dat") == "/home/ana"
    assert measured_in("/home/a\\b/disk.dat") == "/home/a\\b"  # a POSIX path with a backslash stays one
