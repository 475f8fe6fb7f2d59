"""The NAS's own benchmark with a desktop that joins over the network (issue 17), on the lab as three
machines: `tengig serve` runs on nas (system local: its own pool, its own smbd), desk runs
`tengig client join` and reaches the NAS only through its cable. The test starts each program on its
host as a person would at each machine, and talks to the NAS's API over the NAS's unix socket. The
NAS's tengig runs under strace (joined_harness.py): the 1 Gb/s test shows that no program it started
reached into another host."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tengig.lab import samba
from tengig.units import GiB, MiB

from .joined_harness import join, nas_api, programs_of, start_run

pytestmark = pytest.mark.lab
RAW_GET = re.compile(r"getting file .* of size (\d+) as /dev/null \(([\d.]+) KiloBytes/sec\)")


def reaches_into_a_namespace(command: str) -> bool:
    """`ip netns exec ...`, `ip -n NS ...` or `nsenter ...`: how the lab's own setup reaches into a host (the
    NAS reading its processes' namespaces with `ps -o netns` does not)."""
    return bool(re.match(r"(\S*/)?nsenter\b|ip (netns exec|-n )", command))


def _raw_smbclient_read_bytes_per_s(lab, name: str, size: int) -> float:
    """Raw smbclient, no tengig code in the measurement: write a file, drop caches, read it back (x3)."""
    src = lab.paths.run / "bench" / "raw.dat"
    src.parent.mkdir(parents=True, exist_ok=True)
    with open(src, "wb") as fh:
        fh.write(os.urandom(size))
    try:
        lab.smbclient("desk", f"put {src} {name}", timeout=120)
        rates = []
        for _ in range(3):  # median of 3, as tengig's own number is a median: one raw dip is not the truth
            lab.runner.run(["sync"], timeout=60)
            lab.runner.run(["sysctl", "-q", "-w", "vm.drop_caches=3"], timeout=60)
            done = lab.smbclient("desk", f"get {name} /dev/null", timeout=120)
            out = done.stdout + done.stderr
            m = RAW_GET.search(out)
            assert m and int(m.group(1)) == size, out
            rates.append(float(m.group(2)) * 1024)
    finally:
        lab.smbclient("desk", f"del {name}", timeout=60)
        src.unlink()
    return sorted(rates)[1]


def test_desk_joins_the_nas_run_and_the_1g_link_is_the_bottleneck(shaped_lab, tmp_path):
    with nas_api(shaped_lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, {"system": "local", "kind": "all", "join": 1, "share": "share",
                                          "repeats": 2, "net_seconds": 2, "working_set": 128 * MiB})
        assert "error" not in outcome, outcome.get("error")
        desk = join(shaped_lab, "desk", urls["desk"], outcome["token"])
        thread.join(600)
        assert desk.wait(30) == 0, (shaped_lab.paths.logs / "test-join-desk.log").read_text()
        assert "error" not in outcome, outcome["error"]
        result = outcome["result"]
        run = api.call("tengig.results.get", result["run_id"])
    raw = _raw_smbclient_read_bytes_per_s(shaped_lab, "raw-compare.dat", 256 * MiB)  # the same path, no tengig

    report = result["report"]
    assert report["system"] == "local"
    client = report["clients"][0]
    assert client["nas_port"]["shaper_bps"] == pytest.approx(984.4e6, rel=1e-3)  # tc on the NAS's port, not the plan
    assert client["link"]["line_rate_bps"] == 1_000_000_000
    assert client["joined"]["os"] == "linux" and client["joined"]["mtu"] == 1500
    read = next(d for d in result["verdict"]["directions"] if d["direction"] == "read")
    assert read["bottleneck"] == "link" and read["beats_target"] is False
    smb_read = client["smb"]["read"]["bytes_per_s"]["median"]
    assert 0 < smb_read < client["link"]["line_rate_bps"] / 8  # the line's physics: no busy machine passes it
    # one copy each, moments apart: 5.6% apart with a core kept busy, so 10%; make bench pairs many rounds
    assert smb_read == pytest.approx(raw, rel=0.10), f"tengig {smb_read / MiB:.1f} vs raw {raw / MiB:.1f} MiB/s"
    verdict = result["verdict"]
    assert read["target_bytes_per_s"] == 223.4e6
    assert any(a["rule"] == "link-below-target" and "1 Gb/s link" in a["text"] for a in verdict["advice"])
    assert "bottleneck: the link" in verdict["summary"]
    pool_read = next(p for p in report["pool"]["phases"] if p["key"] == "seq1m-q8t1" and p["direction"] == "read")
    assert pool_read["arc_hit_ratio"] is not None and pool_read["arc_hit_ratio"] < 0.10  # from the disks, not RAM
    # the ARC kept out by uncached writes, with files that do not grow with the NAS's RAM; the bytes reported
    for part in (report["pool"], client["smb"]):
        assert part["cache_policy"]["method"] == "uncached-writes", part["cache_policy"]
    assert client["smb"]["read"]["arc_hit_ratio"] < 0.10
    assert report["bytes_written"] == report["pool"]["bytes_written"] + client["smb"]["bytes_written"]
    assert report["pool"]["working_set_bytes"] == 128 * MiB  # as asked (the preset's is 512 MiB)
    pool_writes = sum(sum(p["bytes_moved"]) for p in report["pool"]["phases"] if p["direction"] == "write")
    assert report["pool"]["bytes_written"] > pool_writes  # fio's writes and the random tests' file before them
    copies = len(client["smb"]["write"]["bytes_per_s"]["values"])
    assert 2 <= copies <= 3 and client["smb"]["bytes_written"] == copies * client["smb"]["file_size"]  # no evict file
    assert report["bytes_written"] < 4 * GiB  # a quick run: a few GiB, whatever the RAM
    assert report["pool"]["compressratio"] <= 1.02
    assert outcome["percents"] == sorted(outcome["percents"]) and outcome["percents"][-1] == 100  # only forward
    assert run["status"] == "success" and run["verdict"]["summary"] == verdict["summary"]
    assert {"fio", "zfs"} <= {r["tool"] for r in run["raw"]}
    left = shaped_lab.runner.run(["zfs", "list", "-H", "-o", "name"], timeout=30).stdout
    assert "tengig-scratch" not in left
    assert all(w >= client["smb"]["file_size"] for w in client["smb"]["read"]["wire_bytes"])  # seen on nas's port
    # quick at 1g: where one stream fills the line the 4-stream tests are left out, and the report says why
    # (on a busy machine one stream may fall short: then they run, and nothing says they were skipped)
    streams = {n["streams"] for n in client["network"]}
    if streams == {1}:
        assert len(client["network_skipped"]) == 2 and all(
            re.fullmatch(r"(read|write) 4 streams: not run, 1 stream already reached \d+\.\d% of the line's "
                         r"0\.9\d+ Gb/s goodput", s) for s in client["network_skipped"]), client["network_skipped"]
    else:
        assert streams == {1, 4} and len(client["network_skipped"]) < 2, client["network_skipped"]
    # every program the NAS ran, ran on the NAS; the client's tools are stored as the client's
    tools = [r["tool"] for r in run["raw"]]
    assert any(t == "iperf3 on desk" for t in tools) and any(t == "smb copy on desk" for t in tools)
    assert not any(reaches_into_a_namespace(" ".join(r["argv"])) for r in run["raw"])
    # and the NAS's process itself (strace): no program it started reached into another host, its own ran
    programs = programs_of(tmp_path)
    assert not [p for p in programs if reaches_into_a_namespace(p)], programs
    for tool in ("fio ", "iperf3 -s ", "smbstatus ", "zfs create ", "zfs set primarycache=", "ip -s -j link show "):
        assert any(p.startswith(tool) for p in programs), f"the NAS never ran {tool.strip()}: {programs}"
    assert not list(shaped_lab.paths.run.glob("**/tengig-bench-*"))  # the scratch directory is gone


def _misbehave(lab, url: str, token: str, mode: str, log: str = ""):
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{repo}:{repo / 'middleware'}"}
    argv = [sys.executable, "-m", "tests.bench.misbehaving_client", url, token, mode,
            str(lab.paths.samba / "client.auth"), str(samba.client_dir(lab.paths, "desk") / "smb.conf")]
    return lab.spawn("desk", argv, log_name=f"test-misbehave-{mode}{log}.log", env=env)


@pytest.mark.abuse
@pytest.mark.parametrize("mode,kind,reason", [
    ("lie", "net", r"desk reports .* received in iperf3 .* but only .* crossed the NAS's port"),
    ("inflate", "net", r"desk reports 1000 B in iperf3 read .* but the NAS's own iperf3 server sent .* in "),
    ("invent", "net", r"the NAS's own iperf3 server served no test .*: desk did not run the iperf3 test it was "
                      r"asked for"),
    ("garbage", "net", r"desk: iperf3 printed no JSON"),
    ("fastcopy", "smb", r"desk reports an SMB write at .*/s, but the NAS's port \S+ carried .* in .* s on its "
                        r"own clock"),
    ("vanish", "smb", r"desk left the run \(its connection closed\)"),
])
def test_a_misbehaving_desktop_fails_the_run_with_the_reason(shaped_lab, tmp_path, mode, kind, reason):
    with nas_api(shaped_lab, tmp_path) as (api, urls):
        url = urls["desk"]
        thread, outcome = start_run(api, {"system": "local", "kind": kind, "join": 1, "share": "share",
                                          "repeats": 1, "net_seconds": 1, "working_set": 128 * MiB})
        client = _misbehave(shaped_lab, url, outcome["token"], mode)
        thread.join(300)
        client.wait(30)
        assert "error" in outcome, f"the run succeeded with a desktop that did {mode}"
        assert re.search(reason, str(outcome["error"])), outcome["error"]
        failed = api.call("tengig.results.query", {"status": "failed"})
        assert failed and re.search(reason, failed[0]["error"])
        # a reused token: the run has ended, and a desktop that tries again is told so
        again = join(shaped_lab, "desk", url, outcome["token"])
        assert again.wait(60) != 0
        log = (shaped_lab.paths.logs / "test-join-desk.log").read_text()
        assert "has ended" in log, log
    share = [line.split("=", 1)[1].strip() for line in (shaped_lab.paths.samba / "smb.conf").read_text().splitlines()
             if line.strip().startswith("path")]
    assert share and not any(list(Path(p).glob("tengig-bench-*")) for p in share), "the scratch directory was left"


@pytest.mark.abuse
def test_desktops_at_once_are_timed_on_the_nas_clock_not_theirs(shaped_lab, tmp_path):
    """Two desktops on desk's 1 Gb/s cable copy at once and each says its copies took a millisecond: the
    aggregate is their bytes over the NAS's own clock (first copy taken to last answer), so it stays under
    what the one port they share can carry."""
    with nas_api(shaped_lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, {"system": "local", "kind": "smb", "join": 2, "share": "share",
                                          "repeats": 1})
        clients = [_misbehave(shaped_lab, urls["desk"], outcome["token"], "instant", f"-{n}") for n in (1, 2)]
        thread.join(600)
        for n, proc in enumerate(clients, 1):
            assert proc.wait(30) == 0, (shaped_lab.paths.logs / f"test-misbehave-instant-{n}.log").read_text()
        assert "error" not in outcome, outcome["error"]
        run = api.call("tengig.results.get", outcome["result"]["run_id"])
    report = outcome["result"]["report"]
    port = report["clients"][0]["nas_port"]
    assert {c["nas_port"]["ifname"] for c in report["clients"]} == {port["ifname"]}  # one port for both
    line = report["clients"][0]["link"]["line_rate_bps"] / 8
    for direction in ("read", "write"):
        together = report["smb_concurrent"][direction]
        assert 0 < together["aggregate"]["median"] < line, (direction, together["aggregate"], line)
    assert any(r["tool"] == "smb copy on desk-2" and r["seconds"] == 0.001 for r in run["raw"])  # what they said
