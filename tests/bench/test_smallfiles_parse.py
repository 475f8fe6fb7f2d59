"""The small-file test's timed lines read on the NAS (bench/parse/smallfiles_parse.py), its results'
arithmetic, and the bounds a run and an instruction are held to (pure)."""
from __future__ import annotations

import pytest

from tengig.bench.parse.smallfiles_parse import parse_smallfiles
from tengig.join_protocol.limits import SMALL_COUNT_LIMITS
from tengig.bench.phases.smallfiles_results import op_result, percentiles
from tengig.bench.run.suite import BenchRunRequest
from tengig.desk.instructions import smallfiles_op
from tengig.errors import ToolOutputError, ValidationError


PUT = "0.{t} putting file f{i:05d}.bin as \\d\\f{i:05d}.bin (3999.6 kb/s) (average 4000.0 kb/s)"


def smbclient_write(times_ms: list[int], start: int = 100, end: int | None = None) -> str:
    lines = ["0.050000 Domain=[X] OS=[] Server=[]", f"0.{start:03d}000 Current directory is \\\\nas\\share\\d\\"]
    lines += [PUT.format(t=f"{t:03d}000", i=i) for i, t in enumerate(times_ms)]
    lines.append(f"0.{(end or times_ms[-1] + 1):03d}000 Current directory is \\\\nas\\share\\d\\")
    return "\n".join(lines) + "\n"


def test_smbclient_lines_give_the_batch_between_its_marks_and_each_files_time():
    timing = parse_smallfiles("smbclient", smbclient_write([101, 103, 104, 108]), "write", expected=4)
    assert timing.files == 4 and timing.seconds == pytest.approx(0.009)  # 0.100 -> 0.109: no connection setup
    assert timing.per_file == pytest.approx([0.001, 0.002, 0.001, 0.004])
    result = op_result(timing, 4096, smbd_cpu_percent=12.0)
    assert result.files_per_s == pytest.approx(4 / 0.009) and result.bytes_per_s == pytest.approx(4 * 4096 / 0.009)
    assert (result.per_file.count, result.per_file.p50_ms, result.per_file.p99_ms) == (4, pytest.approx(1.0),
                                                                                       pytest.approx(4.0))


def test_a_batch_of_another_size_or_without_both_marks_is_refused():
    with pytest.raises(ToolOutputError, match="handled 3 file\\(s\\), the NAS asked for 4"):
        parse_smallfiles("smbclient", smbclient_write([101, 102, 103]), "write", expected=4)
    cut = smbclient_write([101, 102]).rsplit("0.", 1)[0]
    with pytest.raises(ToolOutputError, match="1 'Current directory is' mark"):
        parse_smallfiles("smbclient", cut, "write", expected=2)
    with pytest.raises(ToolOutputError, match="tengig reads smbclient and tengig-small only"):
        parse_smallfiles("robocopy", smbclient_write([101]), "write", expected=1)


def test_tengigs_own_timer_gives_open_and_close_apart():
    text = "\n".join(["0.000010 tengig-small: start read",
                      "0.000400 tengig-small: file f00000.bin 4096 open=0.000100 io=0.000050 close=0.000020",
                      "0.000800 tengig-small: file f00001.bin 4096 open=0.000300 io=0.000050 close=0.000040",
                      "0.000810 tengig-small: end read"])
    timing = parse_smallfiles("tengig-small", text, "read", expected=2)
    assert timing.bytes_read == 8192 and timing.seconds == pytest.approx(0.0008)
    assert timing.opens == [0.0001, 0.0003] and timing.closes == [0.00002, 0.00004]
    assert timing.per_file == pytest.approx([0.00017, 0.00039])


def test_percentiles_are_nearest_rank_and_none_without_values():
    p = percentiles([i / 1000 for i in range(1, 101)])  # 1 .. 100 ms
    assert (p.count, p.p50_ms, p.p95_ms, p.p99_ms) == (100, pytest.approx(50), pytest.approx(95), pytest.approx(99))
    assert percentiles([]) is None


def test_bounds_name_the_field():
    with pytest.raises(ValidationError) as err:
        BenchRunRequest(kind="smallfiles", small_files=[{"size": 4096, "count": 200}, {"size": 16 * 2**20,
                                                                                       "count": 100}])
    assert err.value.errors[0][0] == "small_files.1.count" and "at most 256 MiB per size" in err.value.errors[0][1]
    nas = frozenset({"10.0.0.1"})
    base = {"op": "write", "server": "10.0.0.1", "share": "share", "remote": "tengig-scratch-1-2-desk\\desk",
            "size": 4096, "count": 200}
    assert smallfiles_op(base, nas) == ("write", "10.0.0.1", "share", "tengig-scratch-1-2-desk\\desk", 4096, 200)
    for change, field in (({"count": 5001}, "instruction.count"), ({"size": 100}, "instruction.size"),
                          ({"op": "format"}, "instruction.op"), ({"remote": "..\\etc"}, "instruction.remote"),
                          ({"server": "10.9.9.9"}, "instruction.server"), ({"count": True}, "instruction.count")):
        with pytest.raises(ValidationError) as err:
            smallfiles_op({**base, **change}, nas)
        assert err.value.errors[0][0] == field


def test_a_count_past_what_one_desktops_answer_holds_is_refused_before_anything_runs():
    # A desktop's own disk answers its four batches at once, one line per file each: the largest count a run
    # may ask is the one whose answer the NAS takes (tests/desk/test_smallfiles_desk.py sends it).
    largest = SMALL_COUNT_LIMITS[1]
    assert BenchRunRequest(kind="smallfiles", small_files=[{"size": 4096, "count": largest}]).small_files[0].count \
        == largest
    with pytest.raises(ValidationError) as err:
        BenchRunRequest(kind="smallfiles", small_files=[{"size": 512, "count": 200},
                                                        {"size": 512, "count": largest + 1}])
    field, why = err.value.errors[0]
    assert field == "small_files.1.count"
    assert f"at most {largest:,} files per size" in why and "1 MiB" in why
    nas = frozenset({"10.0.0.1"})
    with pytest.raises(ValidationError) as err:
        smallfiles_op({"op": "disk", "server": "10.0.0.1", "share": "share", "remote": "tengig-scratch-1-2-desk\\desk",
                       "size": 512, "count": largest + 1}, nas)
    assert err.value.errors[0] == ("instruction.count", f"{largest + 1} is not a whole number from 1 to {largest}")
