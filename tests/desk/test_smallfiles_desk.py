"""The desktop's side of the small-file test (desk/smallfiles.py), on this machine's own disk: its files made
and removed, tengig's own timer's lines read back by the NAS's parser, and smbclient's scripts built from
tengig's own names only."""
from __future__ import annotations

import threading

from tengig.bench.join.session import BenchSession
from tengig.bench.parse.smallfiles_parse import parse_smallfiles
from tengig.join_protocol.limits import SMALL_COUNT_LIMITS
from tengig.join_protocol.lines import SMALL_BATCH_OPS as SMALL_OPS
from tengig.join_protocol.messages import JoinInfo, Submission
from tengig.desk.beneath import Beneath
from tengig.desk.smallfiles import SmallSet, own_run, smbclient_commands, timed_run
from tengig.join_protocol.parts import submission_parts


def test_the_own_timer_times_every_file_of_every_batch_and_leaves_nothing(tmp_path):
    work, disk = tmp_path / "work", tmp_path / "disk"
    work.mkdir()
    disk.mkdir()
    small = SmallSet(work, 4096, 20)
    assert sorted(p.stat().st_size for p in small.src.iterdir()) == [4096] * 20
    sub = own_run(SMALL_OPS, Beneath(disk, ("tengig-small-4096",)), small)
    assert sub["exit_code"] == 0 and sub["argv"][0] == "tengig-small"
    for op in SMALL_OPS:
        timing = parse_smallfiles("tengig-small", sub["stdout"], op, expected=20)
        assert len(timing.per_file) == len(timing.opens) == len(timing.closes) == 20
        assert timing.seconds >= sum(timing.per_file) > 0
    assert parse_smallfiles("tengig-small", sub["stdout"], "read", expected=20).bytes_read == 20 * 4096
    assert list(disk.iterdir()) == []  # the delete removed the files and their directory
    small.remove()
    assert list(work.iterdir()) == []


def test_smbclient_batches_sit_between_two_pwd_marks_and_the_lines_are_timed(tmp_path):
    small = SmallSet(tmp_path, 512, 2)
    script = smbclient_commands("write", "tengig-scratch-1-2-s\\desk\\small-512", small)
    assert script == f"prompt OFF; lcd {small.src}; cd tengig-scratch-1-2-s\\desk\\small-512; pwd; mput *; pwd"
    assert smbclient_commands("prepare", "a\\b\\small-512", small) == "mkdir a\\b; mkdir a\\b\\small-512"
    sub = timed_run(["sh", "-c", "echo one; sleep 2; echo two"], timeout=30)
    (t1, one), (t2, two) = (line.split(" ", 1) for line in sub["stdout"].splitlines())
    assert (one, two, sub["exit_code"]) == ("one", "two", 0)
    # each line timed as it came, not when the program ended (a busy machine may read the first line late: a
    # second of slack, not the whole sleep)
    assert float(t2) - float(t1) >= 1
    hung = timed_run(["sh", "-c", "echo one; sleep 30; echo never"], timeout=1)  # silent and never done: stopped
    assert hung["exit_code"] != 0 and hung["stdout"].splitlines()[-1].endswith("timed out after 1 s")



def test_a_batch_that_fails_partway_on_the_own_disk_leaves_none_of_its_files(tmp_path):
    # The disk's directory (there before: kept) holds a directory named as the batch's 6th file: creating that
    # file fails for real (EISDIR, root or not) after 5 files were written.
    work, disk = tmp_path / "work", tmp_path / "disk"
    work.mkdir()
    directory = disk / "tengig-small-4096"
    (directory / "f00005.bin").mkdir(parents=True)
    small = SmallSet(work, 4096, 20)
    sub = own_run(SMALL_OPS, Beneath(disk, ("tengig-small-4096",)), small)
    assert sub["exit_code"] == 1 and "f00005.bin" in sub["stderr"]
    assert sorted(p.name for p in directory.iterdir()) == ["f00005.bin"]  # what it wrote is gone, not what it found
    assert "could not remove" not in sub["stderr"]
    small.remove()


def test_what_could_not_be_removed_is_named(tmp_path):
    # A batch's clean-up where a file it wrote is now a directory with something in it (unlink fails for real),
    # in a directory it made (not empty then: kept, and said).
    from tengig.desk.smallfiles import remove_written

    directory = tmp_path / "tengig-small-512"
    (directory / "f00001.bin" / "other").mkdir(parents=True)
    (directory / "f00000.bin").write_bytes(b"x")
    left = remove_written(Beneath(tmp_path, ("tengig-small-512",)), ["f00000.bin", "f00001.bin", "f00002.bin"],
                          made=True)
    assert [p.name for p in directory.iterdir()] == ["f00001.bin"]
    assert len(left) == 2 and left[0].startswith(f"{directory / 'f00001.bin'}: ")
    assert left[1].startswith(f"{directory}: ")


def test_the_largest_count_a_run_may_ask_fits_one_own_disk_answer_on_the_nas(tmp_path):
    # All four batches of the own disk go back in one answer: at the largest count a run may ask, the NAS's
    # session takes it whole (at most MAX_OUTPUT_BYTES) and its parser reads every file of every batch.
    count = SMALL_COUNT_LIMITS[1]
    work, disk = tmp_path / "work", tmp_path / "disk"
    work.mkdir()
    disk.mkdir()
    small = SmallSet(work, 512, count)
    sub = own_run(SMALL_OPS, Beneath(disk, ("tengig-small-512",)), small)
    small.remove()
    assert sub["exit_code"] == 0
    session = BenchSession(1, b"digest", 1, join_timeout=5)
    client = session.join(JoinInfo(hostname="desk", os="linux"), peer="10.0.0.2", local="10.0.0.1")
    iid = session.post(client, "smallfiles", {"op": "disk", "size": 512, "count": count})
    session.next(client)
    for part in submission_parts({"instruction": iid, **sub}):
        session.submit(client, Submission(**part))
    taken = session.wait_result(client, iid, timeout=5, cancel=threading.Event())
    for op in SMALL_OPS:
        assert parse_smallfiles("tengig-small", taken.stdout, op, expected=count).files == count
