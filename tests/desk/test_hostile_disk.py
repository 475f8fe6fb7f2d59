"""`tengig client join --disk DIR` where another local user can write (a world-writable DIR, as /tmp), where the
disk is nearly full, and where DIR's name has characters fio reads as its own: the desktop (often root) writes
only into a fresh directory of its own (mode 0700, made exclusively), creates its files exclusively, removes
both, refuses a DIR another user could swap its files in, checks the room for everything it holds at once,
and makes fio write exactly the file meant (the real fio of this machine)."""
from __future__ import annotations

import os
import stat
import subprocess

import pytest

from tengig.bench.join.own_disk import parse_own_disk
from tengig.desk import beneath, own_disk
from tengig.desk.beneath import private_dir
from tengig.runner import Runner
from tengig.units import MiB

from .hostile_nas import HostileNas

pytestmark = pytest.mark.abuse

SIZE = 8 * MiB
SMALL = {"op": "disk", "server": "127.0.0.1", "share": "share", "remote": "tengig-scratch-1-1-desk\\desk",
         "size": 4096, "count": 4}


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "source.dat"
    path.write_bytes(os.urandom(SIZE))
    return path


def test_a_premade_link_in_a_shared_disk_directory_is_never_written_through(tmp_path):
    # Another user of a world-writable (sticky, as /tmp) --disk made the names tengig used to take, as links
    # towards a root-only file of the desktop's.
    disk, theirs, victim = tmp_path / "shared", tmp_path / "theirs", tmp_path / "root-only"
    disk.mkdir()
    disk.chmod(0o1777)
    theirs.mkdir()
    victim.write_text("root's own\n")
    victim.chmod(0o600)
    for i in range(4):
        (theirs / f"f{i:05d}.bin").symlink_to(victim)
    (disk / "tengig-small-4096").symlink_to(theirs)
    with HostileNas([("smallfiles", SMALL)]) as nas:
        done = nas.join(tmp_path, "--disk", str(disk), "--workdir", str(tmp_path))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert victim.read_text() == "root's own\n"
    sub = nas.submitted[1]
    assert sub["exit_code"] == 0, sub  # measured all the same, in a directory of its own
    measured_in = sub["argv"][-1]
    assert measured_in.startswith(str(disk / "tengig-small-")) and measured_in != str(disk / "tengig-small-4096")
    assert [p.name for p in disk.iterdir()] == ["tengig-small-4096"]  # its own directory gone, the link left


def test_tengigs_directory_in_disk_is_private_and_never_one_that_was_there(tmp_path, monkeypatch):
    (tmp_path / "tengig-own-disk-000000000000").mkdir()  # another user's, under the first name tried
    names = iter(["000000000000", "0123456789ab"])
    monkeypatch.setattr(beneath.secrets, "token_hex", lambda n: next(names))
    place = private_dir(tmp_path, "tengig-own-disk-")
    assert place.path == tmp_path / "tengig-own-disk-0123456789ab"
    assert stat.S_IMODE(place.path.stat().st_mode) == 0o700


def test_the_own_disk_file_is_made_in_a_private_directory_and_removed(tmp_path, source, monkeypatch):
    disk = tmp_path / "disk"
    disk.mkdir()
    seen = []
    real_put = own_disk.put

    def put(src, place, size):  # what tengig's directory is while it copies
        seen.append((place.path, stat.S_IMODE(place.path.parent.stat().st_mode), place.path.stat().st_nlink))
        return real_put(src, place, size)

    monkeypatch.setattr(own_disk.shutil, "which", lambda name: None)
    monkeypatch.setattr(own_disk, "put", put)
    sub = own_disk.measure(Runner(), disk, SIZE, source)
    assert sub["exit_code"] == 0, sub
    (path, mode, links), = seen
    assert path.parent.parent == disk and path.parent.name.startswith("tengig-own-disk-") and mode == 0o700
    assert parse_own_disk(sub["argv"], sub["stdout"], sub["stderr"], size=SIZE).path == str(disk)
    assert list(disk.iterdir()) == []


@pytest.mark.parametrize("mode, owner, said", [(0o777, None, "every user can write to it (mode 0777, no sticky bit)"),
                                               (0o755, 4321, "it belongs to another user (uid 4321)")])
def test_a_disk_directory_another_user_could_swap_files_in_is_refused(tmp_path, mode, owner, said):
    disk = tmp_path / "disk"
    disk.mkdir()
    disk.chmod(mode)
    if owner is not None:
        os.chown(disk, owner, owner)
    with HostileNas([]) as nas:
        done = nas.join(tmp_path, "--disk", str(disk))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"--disk: {disk}: {said}" in done.stderr and "sticky bit" in done.stderr, done.stderr
    assert nas.joined == []


@pytest.fixture
def one_disk(tmp_path):
    """--disk and --workdir on one 1100 MiB tmpfs (nothing written: no memory used): room for one file of
    48 MiB with 1 GiB left free, not for two."""
    root = tmp_path / "one"
    root.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1100m", "tengig-test", str(root)], check=True)
    (root / "disk").mkdir()
    (root / "work").mkdir()
    yield root
    subprocess.run(["umount", str(root)], check=True)


def test_room_is_checked_for_everything_the_disk_holds_at_once(tmp_path, one_disk):
    disk, work = one_disk / "disk", one_disk / "work"
    with HostileNas([("disk", {"size": 48 * MiB})]) as nas:
        done = nas.join(tmp_path, "--disk", str(disk), "--workdir", str(work))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    said = nas.submitted[1]["stderr"]
    assert said == (f"refused: instruction.size: 48 MiB in {disk} (--disk) and 48 MiB in {work} (--workdir), held "
                    "at once on one disk (96 MiB), do not fit: 1.074 GiB free, of which 1 GiB must stay free; give "
                    "--disk a directory on a disk with room"), said
    assert list(disk.iterdir()) == [] and list(work.iterdir()) == []


def test_small_files_on_disk_count_the_set_made_in_workdir_too(tmp_path, one_disk):
    disk, work = one_disk / "disk", one_disk / "work"
    with HostileNas([("smallfiles", {**SMALL, "size": 64 * 1024, "count": 500})]) as nas:  # 31 MiB, twice in work
        done = nas.join(tmp_path, "--disk", str(disk), "--workdir", str(work))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    said = nas.submitted[1]["stderr"]
    assert said.startswith(f"refused: instruction.size: 31.25 MiB in {disk} (--disk) and 62.5 MiB in {work} "
                           "(--workdir), held at once on one disk (93.75 MiB), do not fit: "), said
    assert list(disk.iterdir()) == [] and list(work.iterdir()) == []


@pytest.mark.parametrize("name, engine", [("x:y", "fio"), ("x;y", "tengig-copy"), ("x#y", "tengig-copy"),
                                          ("x\\:y", "fio")])
def test_fio_writes_exactly_the_file_meant_in_a_disk_with_its_separators(tmp_path, source, name, engine):
    # The neighbour fio would take for the file (its ':' separates names, its ';' and '#' begin a comment).
    neighbour = tmp_path / "x"
    neighbour.write_text("keep\n")
    disk = tmp_path / name
    disk.mkdir()
    sub = own_disk.measure(Runner(), disk, SIZE, source)
    assert sub["exit_code"] == 0 and sub["argv"][0] == engine, sub
    assert neighbour.read_text() == "keep\n" and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["x", name, "source.dat"])
    measured = parse_own_disk(sub["argv"], sub["stdout"], sub["stderr"], size=SIZE)
    assert measured.path == str(disk) and measured.file_size == SIZE
    if engine != "fio":
        assert sub["stderr"].startswith(f"fio not used: fio cannot take a file name with {name[1]!r}"), sub["stderr"]
    assert list(disk.iterdir()) == []
