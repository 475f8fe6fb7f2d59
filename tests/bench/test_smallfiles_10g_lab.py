"""Small files from desk over a 10 Gb/s cable (issue 27, item 1): the same test as at 1 Gb/s
(test_smallfiles_lab.py), on a lab of its own: files/s and each file's time per size; 4 KiB files gain
little from the faster link (round trips and per-file work, not bandwidth), and 1 MiB files are not held
to what 1 Gb/s carries."""
from __future__ import annotations

import pytest

from tengig.lab import Lab, build_spec

from .joined_harness import held_by_the_nas, small_files_run

pytestmark = pytest.mark.lab
SIZES = [{"size": 4096, "count": 200}, {"size": 65536, "count": 50}, {"size": 1048576, "count": 8}]


@pytest.fixture(scope="module")
def lab_10g():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=10g", "lab-nas=100m", "desk-lab=1g"]))
    yield lab
    lab.down()


def test_small_files_from_desk_at_10g_per_size_with_latency(lab_10g, tmp_path):
    client, _ = small_files_run(lab_10g, tmp_path, {"system": "local", "kind": "smallfiles", "join": 1,
                                                    "share": "share", "small_files": SIZES})
    assert client["link"]["line_rate_bps"] == 10_000_000_000
    small = client["small_files"]
    rates = {}
    for s in small["sizes"]:
        assert (s["nas_files"], s["nas_bytes"], s["nas_files_left"]) == (s["count"], s["count"] * s["size"], 0)
        for o in s["ops"]:
            assert o["files"] == s["count"] and o["files_per_s"] > 0
            if o["op"] in ("write", "read") and o["nas_note"] is None:
                p = o["per_file"]
                assert p["count"] == s["count"] and 0 < p["p50_ms"] <= p["p95_ms"] <= p["p99_ms"]
            elif o["op"] in ("write", "read"):
                # a busy desk read smbclient's lines in bunches (stamps microseconds apart, under what a file
                # takes at the line rate): the NAS holds them to its own clock and says why
                assert held_by_the_nas(o), o
        rates[s["size"]] = {o["op"]: o for o in s["ops"]}
    four, mib = rates[4096]["write"], rates[1048576]["write"]
    assert four["bytes_per_s"] < 0.5 * mib["bytes_per_s"]  # 4 KiB files move a fraction of 1 MiB files' bytes
    assert client["verdict"]["small_files"].startswith(f"copying 4 KiB files: {four['files_per_s']:,.0f} files/s")
    for size, ops in rates.items():
        print(f"10g {size:>8} B: write {ops['write']['files_per_s']:,.0f} files/s "
              f"({ops['write']['bytes_per_s'] / 1e6:.1f} MB/s, per file {ops['write']['per_file'] or 'left out'}), "
              f"read {ops['read']['files_per_s']:,.0f} files/s")
    print(client["verdict"]["small_files"])
