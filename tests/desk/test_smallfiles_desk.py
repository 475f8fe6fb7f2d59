"""The desktop's side of the small-file test (desk/smallfiles.py), on this machine's own disk: its files made
and removed, tengig's own timer's lines read back by the NAS's parser, and smbclient's scripts built from
tengig's own names only."""
from __future__ import annotations

from tengig.bench.parse.smallfiles_parse import SMALL_OPS, parse_smallfiles
from tengig.desk.smallfiles import SmallSet, own_run, smbclient_commands, timed_run


def test_the_own_timer_times_every_file_of_every_batch_and_leaves_nothing(tmp_path):
    work, disk = tmp_path / "work", tmp_path / "disk"
    work.mkdir()
    disk.mkdir()
    small = SmallSet(work, 4096, 20)
    assert sorted(p.stat().st_size for p in small.src.iterdir()) == [4096] * 20
    sub = own_run(SMALL_OPS, disk / "tengig-small-4096", small)
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
    sub = timed_run(["sh", "-c", "echo one; sleep 0.2; echo two"], timeout=30)
    (t1, one), (t2, two) = (line.split(" ", 1) for line in sub["stdout"].splitlines())
    assert (one, two, sub["exit_code"]) == ("one", "two", 0)
    assert float(t2) - float(t1) >= 0.2  # each line timed as it came, not when the program ended
    hung = timed_run(["sh", "-c", "echo one; sleep 30; echo never"], timeout=1)  # silent and never done: stopped
    assert hung["exit_code"] != 0 and hung["stdout"].splitlines()[-1].endswith("timed out after 1 s")
