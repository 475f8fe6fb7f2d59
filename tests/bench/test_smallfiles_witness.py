"""A desktop's small-file times against what the NAS saw itself (bench/join/nas_witness.py, small_batch_*): the
NAS's window for the batch (its own clock, from when the desktop took it to its answer) and the bytes its port
carried, the same bounds the big SMB copies are held to. A desktop that says it wrote 200 files in 2 ns
(1e11 files/s, each file in 1e-8 ms) while the NAS's window was 0.30 s gets the NAS's bound shown, saying
why, never its own word."""
from __future__ import annotations

import pytest

from tengig.bench.join.nas_witness import (
    SMB2_HEADER_BYTES, SMB_START_SLACK_S, small_batch_bounds, small_batch_on_nas_clock,
)
from tengig.bench.parse.smallfiles_parse import parse_smallfiles
from tengig.join_protocol.lines import stamped
from tengig.bench.phases.nas_port import NasPort
from tengig.bench.phases.smallfiles_results import op_result
from tengig.errors import ToolOutputError


PORT = NasPort(ifname="nas-desk", address="10.0.0.1", mtu=1500, speed_bps=10**9, shaper_bps=None)  # 125 MB/s
LINE = 125e6
SIZE, COUNT = 4096, 200
MOVED = SIZE * COUNT


def own_timer(op: str, batch_s: float, per_file_s: float, count: int = COUNT) -> str:
    """tengig's own timer's answer for a batch of ``count`` files of SIZE, each timed ``per_file_s``."""
    third = per_file_s / 3
    lines = [stamped(0.5, f"tengig-small: start {op}")]
    lines += [stamped(0.5, f"tengig-small: file f{i:05d}.bin {SIZE} open={third:.15f} io={third:.15f} "
                           f"close={third:.15f}") for i in range(count)]  # as many digits as a desktop likes
    lines.append(f"{0.5 + batch_s:.12f} tengig-small: end {op}")
    return "\n".join(lines) + "\n"


def held(op: str, text: str, *, window: float, seen: int, count: int = COUNT):
    timing = parse_smallfiles("tengig-small", text, op, expected=count)
    bounds = small_batch_bounds(op, count, SIZE, seen, window, PORT)
    timing, note = small_batch_on_nas_clock("desk", timing, bounds)
    return op_result(timing, SIZE, nas_note=note)


@pytest.mark.abuse
def test_a_write_of_200_files_in_2_ns_gets_the_nas_bound_and_no_times_of_single_files():
    text = own_timer("write", 2e-9, 1e-11)
    assert parse_smallfiles("tengig-small", text, "write", expected=COUNT).seconds == pytest.approx(2e-9)  # its word
    result = held("write", text, window=0.30, seen=int(1.05 * MOVED))
    least = MOVED / LINE  # 819.2 kB over a 1 Gb/s port: 6.55 ms at least (the window is too short to say more)
    assert result.seconds == pytest.approx(least) and result.files_per_s == pytest.approx(COUNT / least)
    assert result.bytes_per_s == pytest.approx(LINE) and result.per_file is None and result.open is None
    assert result.nas_note.startswith("desk timed its small-file write of 200 file(s) at 2e-09 s, but the batch "
                                      "took at least 0.00655 s: 800 KiB at most 125.0 MB/s, its line rate (its port nas-desk)")
    assert result.nas_note.endswith("the NAS's 0.00655 s is shown, and no times of single files")


@pytest.mark.abuse
def test_a_read_faster_than_the_port_carried_in_the_window_gets_the_nas_bound():
    seen = int(1.1 * MOVED)
    result = held("read", own_timer("read", 0.2, 0.001), window=3.0, seen=seen)
    least = MOVED / (seen / (3.0 - SMB_START_SLACK_S))  # the same bound as a big copy's
    assert result.seconds == pytest.approx(least) and "allowing 1 s of it for the copy to start" in result.nas_note


@pytest.mark.abuse
def test_a_delete_or_stat_in_2_ns_is_held_to_what_the_nas_can_tell_of_it():
    result = held("delete", own_timer("delete", 2e-9, 1e-11), window=0.30, seen=0)
    assert result.seconds == pytest.approx(COUNT * SMB2_HEADER_BYTES / LINE) and result.per_file is None
    assert "200 x one SMB2 request of at least 64 bytes at the 125.0 MB/s line rate" in result.nas_note
    result = held("stat", own_timer("stat", 0.01, 0.00005), window=10.0, seen=0)
    assert result.seconds == pytest.approx(10.0 - SMB_START_SLACK_S)  # a stat may be the desktop's cache: the window
    assert "the NAS's 10 s from when it took the batch to its answer, less 1 s" in result.nas_note


@pytest.mark.abuse
def test_a_batch_longer_than_the_nas_window_gets_the_window():
    result = held("stat", own_timer("stat", 50.0, 0.2), window=2.0, seen=0)
    assert result.seconds == pytest.approx(2.0) and result.per_file is None
    assert "at most the NAS's 2 s from when it took the batch to its answer" in result.nas_note


@pytest.mark.abuse
def test_times_of_single_files_below_what_one_file_takes_are_left_out_and_the_batch_stands():
    result = held("write", own_timer("write", 0.05, 1e-11), window=0.30, seen=int(1.05 * MOVED))
    assert result.seconds == pytest.approx(0.05) and result.per_file is None and result.open is None
    assert result.nas_note == ("desk timed its small-file write of 200 file(s) at 1e-08 ms per file or less for half "
                               "of them, less than half of the 0.0328 ms each took at least (4 KiB at the 125.0 MB/s "
                               "line rate of the NAS's port nas-desk): its times of single files are left out")
    near = held("write", own_timer("write", 0.05, 0.6 * SIZE / LINE), window=0.30, seen=int(1.05 * MOVED))
    assert near.nas_note is None and near.per_file is not None  # jitter and a shaper's burst: honest, it stands


def test_honest_batches_stand_as_the_desktop_timed_them():
    for op, seen in (("write", int(1.05 * MOVED)), ("read", int(1.05 * MOVED)), ("stat", 0), ("delete", 0)):
        result = held(op, own_timer(op, 0.25, 0.001), window=0.9, seen=seen)
        assert result.seconds == pytest.approx(0.25) and result.nas_note is None, op
        assert result.per_file.p50_ms == pytest.approx(1.0), op


def test_a_batch_a_shapers_burst_let_run_a_little_over_the_line_stands():
    result = held("write", own_timer("write", 0.9 * MOVED / LINE, 0.8 * SIZE / LINE), window=0.30, seen=MOVED)
    assert result.nas_note is None and result.bytes_per_s == pytest.approx(LINE / 0.9)


def test_without_a_window_of_its_own_the_nas_does_not_take_the_batch():
    with pytest.raises(ToolOutputError, match="no window of its own"):
        small_batch_bounds("write", COUNT, SIZE, MOVED, None, PORT)
