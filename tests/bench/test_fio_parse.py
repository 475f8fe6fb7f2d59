"""fio JSON parser on recorded real runs (zfs-fuse on the lab), including a full dataset and a killed fio."""
from pathlib import Path

import pytest

from tengig.bench.parse.fio_parse import decode_documents, parse_fio_json, require_io
from tengig.errors import ToolOutputError
from tengig.units import MiB

FIX = Path(__file__).parent.parent / "fixtures" / "fio"


def test_sequential_write_bytes_over_runtime():
    [job] = parse_fio_json((FIX / "seq1m-q8t1-write-zfs-fuse.json").read_text())
    io = require_io(job, "write")
    assert io.bytes == 256 * MiB and io.runtime_ms == 609
    # bytes counted once, over fio's own runtime (docs/physics.md §6: a popular tool doubled this)
    assert io.bytes_per_s == pytest.approx(256 * MiB / 0.609)
    assert job.read is None
    with pytest.raises(ToolOutputError, match="moved no bytes in read"):
        require_io(job, "read")


def test_random_read_iops_and_latency():
    [job] = parse_fio_json((FIX / "rnd4k-q32t1-read-zfs-fuse.json").read_text())
    io = require_io(job, "read")
    assert io.iops == pytest.approx(io.bytes / 4096 / (io.runtime_ms / 1000), rel=0.01)
    assert io.mean_latency_us and io.p99_latency_us and io.p99_latency_us >= io.mean_latency_us


def test_full_dataset_names_the_errno_even_though_bytes_moved():
    text = (FIX / "write-dataset-full.json").read_text()
    [job] = parse_fio_json(text)
    assert job.error == 122 and job.write is not None  # 31 MiB went out before the quota hit
    with pytest.raises(ToolOutputError, match="EDQUOT"):
        require_io(job, "write")


def test_killed_fio_printed_nothing():
    with pytest.raises(ToolOutputError, match="no JSON"):
        parse_fio_json((FIX / "killed.json").read_text())


def test_notes_before_json_and_several_documents():
    one = (FIX / "seq1m-q8t1-read-zfs-fuse.json").read_text()
    text = "fio: note: both iodepth >= 1 and synchronous I/O engine\n" + one + "\n" + one
    assert len(decode_documents(text)) == 2
    assert len(parse_fio_json(text)) == 2


def test_truncated_json_is_an_error():
    text = (FIX / "seq1m-q8t1-read-zfs-fuse.json").read_text()
    with pytest.raises(ToolOutputError, match="broken"):
        parse_fio_json(text[: len(text) // 2])
