"""smbclient get/put lines, recorded on the lab over a 1 Gb/s cable (tests/fixtures/smbclient)."""
from pathlib import Path

import pytest

from tengig.bench.parse.smbclient_parse import parse_transfer
from tengig.errors import ToolOutputError

FIX = Path(__file__).parent.parent / "fixtures" / "smbclient"
SIZE = 64 * 2**20


def test_get_over_one_gigabit():
    t = parse_transfer((FIX / "get-64MiB-1g.txt").read_text(), direction="read", expected_bytes=SIZE)
    assert t.bytes == SIZE
    assert t.bytes_per_s == pytest.approx(112993.1 * 1024)  # KiB/s -> bytes/s, once (not twice)
    assert t.bytes_per_s / 1e6 == pytest.approx(115.7, abs=0.1)  # MB/s, just under 1g's 117.7 MB/s ceiling
    assert t.seconds == pytest.approx(SIZE / (112993.1 * 1024))


def test_put_over_one_gigabit():
    t = parse_transfer((FIX / "put-64MiB-1g.txt").read_text(), direction="write", expected_bytes=SIZE)
    assert t.bytes_per_s == pytest.approx(107967.0 * 1024)


def test_missing_file_is_an_error():
    with pytest.raises(ToolOutputError, match="NT_STATUS_OBJECT_NAME_NOT_FOUND"):
        parse_transfer((FIX / "get-missing.txt").read_text(), direction="read", expected_bytes=SIZE)


def test_short_read_is_an_error():
    with pytest.raises(ToolOutputError, match="expected"):
        parse_transfer((FIX / "get-64MiB-1g.txt").read_text(), direction="read", expected_bytes=SIZE * 2)


@pytest.mark.parametrize("text", ["", "Domain=[WORKGROUP] OS=[] Server=[]\n"])
def test_no_transfer_line_is_never_a_number(text):
    with pytest.raises(ToolOutputError):
        parse_transfer(text, direction="read", expected_bytes=SIZE)
