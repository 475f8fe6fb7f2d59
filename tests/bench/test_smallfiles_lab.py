"""Small files over SMB (issue 27, item 1) on the lab: desk joins a `smallfiles` run over its 1 Gb/s cable
with its own disk (--disk) and writes, lists, reads and deletes 200 x 4 KiB, 50 x 64 KiB and 8 x 1 MiB
through smbclient; the NAS checks the files on its own file system and the verdict says files/s beside the
desktop's own disk and what holds them back. Then the same with a hidden delay on desk's end of the cable."""
from __future__ import annotations

import pytest

from tengig.bench.join.nas_witness import SMALL_BATCH_TOLERANCE

from .delayed_cable import delayed
from .joined_harness import held_by_the_nas, programs_of, small_files_run

pytestmark = pytest.mark.lab
SIZES = [{"size": 4096, "count": 200}, {"size": 65536, "count": 50}, {"size": 1048576, "count": 8}]
DELAY_MS = 2.0
REQUEST = {"system": "local", "kind": "smallfiles", "join": 1, "share": "share", "small_files": SIZES}


SEEN: dict[str, dict] = {}  # the first test's 4 KiB write, for the delayed one


def test_small_files_from_desk_per_size_with_latency_and_the_nas_counting_them(shaped_lab, tmp_path):
    disk = tmp_path / "own-disk"
    disk.mkdir()
    client, run = small_files_run(shaped_lab, tmp_path, REQUEST, disk)
    small = client["small_files"]
    assert [(s["size"], s["count"]) for s in small["sizes"]] == [(d["size"], d["count"]) for d in SIZES]
    for s in small["sizes"]:
        assert s["engine"] == "smbclient"
        assert (s["nas_files"], s["nas_bytes"], s["nas_files_left"]) == (s["count"], s["count"] * s["size"], 0)
        ops = {o["op"]: o for o in s["ops"]}
        assert list(ops) == ["write", "stat", "read", "delete"]
        # an honest desktop's batch times stand as it timed them; where a busy desktop read smbclient's lines in
        # bunches (stamps microseconds apart), the NAS holds them to its own clock and says why
        assert all(o["nas_note"] is None or held_by_the_nas(o) for o in s["ops"]), s["ops"]
        for name in ("write", "read"):
            o = ops[name]
            assert o["files"] == s["count"] and o["bytes"] == s["count"] * s["size"]
            assert o["files_per_s"] == pytest.approx(o["files"] / o["seconds"])
            if o["nas_note"] is None:
                assert o["per_file"]["count"] == s["count"]
                assert 0 < o["per_file"]["p50_ms"] <= o["per_file"]["p95_ms"] <= o["per_file"]["p99_ms"]
            else:
                assert o["per_file"] is None, o
            assert o["smbd_cpu_percent"] is not None
        own = {o["op"]: o for o in s["own_disk"]}
        assert list(own) == ["write", "stat", "read", "delete"]
        assert own["write"]["open"]["count"] == own["write"]["close"]["count"] == s["count"]
    # 1 MiB files over 1 Gb/s: bandwidth shows (at most what the link carries); 4 KiB ones: round trips do
    four, mib = small["sizes"][0], small["sizes"][2]
    # 8 MiB timed by smbclient's lines: the tbf's burst lets it run a little over the line (125.6 MB/s seen), and
    # the NAS takes no batch faster than its port allows by more than its tolerance
    line_bytes_per_s = client["link"]["line_rate_bps"] / 8
    w4, w_mib = (next(o for o in size["ops"] if o["op"] == "write") for size in (four, mib))
    assert w_mib["bytes_per_s"] <= line_bytes_per_s * (1 + SMALL_BATCH_TOLERANCE)
    assert w4["bytes_per_s"] < 0.5 * w_mib["bytes_per_s"]
    assert small["round_trip_ms"] is not None and small["round_trip_ms"] > 0
    line = client["verdict"]["small_files"]
    assert line.startswith(f"copying 4 KiB files: {w4['files_per_s']:,.0f} files/s"), line
    assert "on your own disk" in line
    assert list(disk.iterdir()) == []  # the own-disk files are gone
    programs = programs_of(tmp_path)
    assert any(p.startswith("find ") for p in programs) and any(p.startswith("ping ") for p in programs)
    assert [r for r in run["raw"] if r["tool"] == "small files write on desk" and r["argv"][0] == "stdbuf"]
    for s in small["sizes"]:
        w = next(o for o in s["ops"] if o["op"] == "write")
        r = next(o for o in s["ops"] if o["op"] == "read")
        single = (f"p50 {w['per_file']['p50_ms']:.2f} p99 {w['per_file']['p99_ms']:.2f} ms" if w["per_file"]
                  else w["nas_note"])  # a busy desktop's single-file times are left out (above)
        print(f"{s['size']:>8} B x {s['count']}: write {w['files_per_s']:,.0f} files/s "
              f"({single}), read "
              f"{r['files_per_s']:,.0f} files/s; own disk write "
              f"{next(o for o in s['own_disk'] if o['op'] == 'write')['files_per_s']:,.0f} files/s")
    print(line, "| rtt", small["round_trip_ms"], "ms")
    assert not any(a["rule"].startswith("small-files-round") for a in client["verdict"]["advice"])
    SEEN["write"] = w4


def test_a_hidden_delay_on_desks_end_lowers_files_per_s_and_the_verdict_names_the_round_trips(shaped_lab, tmp_path):
    """2 ms added to every packet desk sends to nas (tests/bench/delayed_cable.py: netem's delay, which this
    kernel lacks, as a program on desk's end): the NAS's own ping sees the longer round trip, 4 KiB files go
    slower, and the verdict says per-file round trips with the measured latency, not bandwidth, hold them back."""
    if "write" not in SEEN:
        pytest.skip("needs the undelayed run of this module first")
    with delayed(shaped_lab, "desk", "nas", DELAY_MS):
        client, _ = small_files_run(shaped_lab, tmp_path, {**REQUEST, "small_files": SIZES[:1]})
    small = client["small_files"]
    rtt = small["round_trip_ms"]
    assert rtt >= DELAY_MS  # measured by the NAS, not told
    write = next(o for o in small["sizes"][0]["ops"] if o["op"] == "write")
    assert write["files_per_s"] < 0.5 * SEEN["write"]["files_per_s"]
    assert write["per_file"]["p50_ms"] >= 3 * DELAY_MS  # create, write, close: each waits one round trip
    line = client["verdict"]["small_files"]
    assert line.startswith(f"copying 4 KiB files: {write['files_per_s']:,.0f} files/s"), line
    assert f"per-file round trips ({rtt:.2f} ms each on this link), not bandwidth, hold it back" in line, line
    advice = next(a for a in client["verdict"]["advice"] if a["rule"] == "small-files-round-trips")
    assert f"of {rtt:.2f} ms on this link" in advice["text"]
    print(line, "|", advice["text"])
