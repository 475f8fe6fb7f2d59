"""A desktop without iproute2 and without smbclient takes part, as a Mac does (issue 26, item 2): on the lab,
desk joins the NAS's run with `ip` absent from its PATH (every other program there) and copies through
the NAS's share mounted on desk (smbnetfs, FUSE: tests/bench/mounted_share.py) with `--mount`. The same
run with smbclient comes first, with desk's own disk measured after its copies (`--disk`); both verdicts
name the 1 Gb/s link, and each SMB figure is what the link carries. Then small files through the same mount
(issue 27): one size, timed by tengig's own timer on desk, counted by the NAS on its own file system.

The module's three runs share one `tengig serve` on nas and one mount (the ``runs`` fixture); each test
reads its part."""
from __future__ import annotations

import pytest

from tengig.join_protocol.lines import OWN_TIMER
from tengig.lab.nas_tengig import join_argv
from tengig.units import MiB

from .joined_harness import nas_api, start_run
from .mounted_share import path_without_iproute2, smbnetfs_share

pytestmark = pytest.mark.lab
REQUEST = {"system": "local", "kind": "all", "join": 1, "share": "share", "repeats": 2, "net_seconds": 2,
           "working_set": 128 * MiB}
SMALL = {"size": 4096, "count": 100}
SMALL_REQUEST = {"system": "local", "kind": "smallfiles", "join": 1, "share": "share", "small_files": [SMALL]}


def _run(lab, api, url: str, request: dict, log: str, *, before: list[str] = (), after: list[str] = (),
         smb: bool = True) -> tuple[dict, dict]:
    """One run that desk joins (its join command between ``before`` and ``after``): (its result, the stored run)."""
    thread, outcome = start_run(api, request)
    desk = lab.spawn("desk", [*before, *join_argv(lab, "desk", url, outcome["token"], smb=smb), *after],
                     log_name=log)
    thread.join(600)
    assert desk.wait(60) == 0, (lab.paths.logs / log).read_text()[-3000:]
    assert "error" not in outcome, outcome.get("error")
    return outcome["result"], api.call("tengig.results.get", outcome["result"]["run_id"])


@pytest.fixture(scope="module")
def runs(shaped_lab, tmp_path_factory):
    """smbclient with --disk, then through the mounted share with no iproute2: the copies, then small files."""
    tmp = tmp_path_factory.mktemp("mounted-share")
    disk = tmp / "own-disk"
    disk.mkdir()
    out = {"disk": disk}
    with nas_api(shaped_lab, tmp) as (api, urls):
        out["smbclient"] = _run(shaped_lab, api, urls["desk"], REQUEST, "test-join-desk-disk.log",
                                after=["--disk", str(disk)])
        no_ip = ["env", f"PATH={path_without_iproute2(tmp / 'bin')}"]
        with smbnetfs_share(shaped_lab, "desk", tmp / "home") as share:
            out["share"] = share
            out["mounted"] = _run(shaped_lab, api, urls["desk"], REQUEST, "test-join-desk-mount.log", before=no_ip,
                                  after=["--mount", str(share)], smb=False)
            out["small"] = _run(shaped_lab, api, urls["desk"], SMALL_REQUEST, "test-join-desk-mount-small.log",
                                before=no_ip, after=["--mount", str(share)], smb=False)
    return out


def _read(result: dict) -> dict:
    return next(d for d in result["verdict"]["directions"] if d["direction"] == "read")


def test_desk_joins_without_ip_and_copies_through_a_mounted_share_with_smbclients_verdict(shaped_lab, runs):
    with_smbclient, _ = runs["smbclient"]
    mounted, run = runs["mounted"]
    share = runs["share"]
    log = (shaped_lab.paths.logs / "test-join-desk-mount.log").read_text()
    assert "joined run" in log and f"copies go through the share mounted at {share}" in log and "Traceback" not in log

    # desk said what its link is with no iproute2: /proc/net/route and /sys/class/net
    client = mounted["report"]["clients"][0]
    assert client["joined"]["interface"] == "eth-nas" and client["joined"]["mtu"] == 1500, client["joined"]
    # every copy went through the mount, read by the NAS from desk's tengig-copy line and checked on its port
    copies = [r for r in run["raw"] if r["tool"] == "smb copy on desk"]
    assert copies and all(r["argv"][0] == "tengig-copy" and r["stdout"].startswith("tengig-copy: ") for r in copies)
    smb = client["smb"]
    assert all(w >= smb["file_size"] for w in smb["read"]["wire_bytes"] + smb["write"]["wire_bytes"])
    # the same verdict as with smbclient: the 1 Gb/s link holds SMB back, and the figures are the link's
    for result in (with_smbclient, mounted):
        read = _read(result)
        assert read["bottleneck"] == "link" and read["beats_target"] is False, result["verdict"]["summary"]
        assert "bottleneck: the link" in result["verdict"]["summary"]
        # what the 1 Gb/s link can carry (117.7 MB/s) bounds the copies; a busy machine only lowers them
        assert 0 < result["report"]["clients"][0]["smb"]["read"]["bytes_per_s"]["median"] <= 1.03 * 117.7e6
    print(f"SMB read, median: smbclient {with_smbclient['report']['clients'][0]['smb']['read']['bytes_per_s']['median'] / MiB:.1f}"
          f" MiB/s, mounted share {smb['read']['bytes_per_s']['median'] / MiB:.1f} MiB/s; write: smbclient "
          f"{with_smbclient['report']['clients'][0]['smb']['write']['bytes_per_s']['median'] / MiB:.1f}, mounted "
          f"{smb['write']['bytes_per_s']['median'] / MiB:.1f} MiB/s; how: {copies[0]['stdout'].strip()}")


def test_desks_own_disk_is_the_target_its_verdict_names_with_the_measured_figures(runs):
    """`--disk PATH` (issue 26, item 3): after its copies, desk writes then reads a file of their size in PATH
    (fio, direct I/O); the report holds what it measured, and a verdict against it beside the run's target."""
    result, run = runs["smbclient"]
    disk = runs["disk"]
    client = result["report"]["clients"][0]
    own = client["own_disk"]
    assert own["method"] == "fio" and own["file_size"] == client["smb"]["file_size"] and own["path"] == str(disk)
    assert client["joined"]["disk"] is True and list(disk.iterdir()) == []
    summary = client["own_disk_verdict"]["summary"]
    read, write = own["read_bytes_per_s"] / 1e6, own["write_bytes_per_s"] / 1e6
    assert summary.startswith(f"Against desk's own disk ({own['path']}), measured here: {read:.1f} MB/s read, "
                              f"{write:.1f} MB/s write: SMB read "), summary
    assert client["verdict"]["summary"].startswith("Against 15k rpm enterprise HDD")  # the run's target, beside it
    assert [r for r in run["raw"] if r["tool"] == "own disk on desk" and r["argv"][0] == "fio"]
    print(summary)


def test_small_files_through_the_mounted_share_timed_by_tengig_and_counted_by_the_nas(runs):
    """desk with --mount writes, lists, reads and deletes its small files through the mount itself (tengig's own
    timer: one os call at a time), never through smbclient; the NAS finds every file and byte it wrote."""
    result, run = runs["small"]
    client = result["report"]["clients"][0]
    (size,) = client["small_files"]["sizes"]
    count, each = SMALL["count"], SMALL["size"]
    assert (size["size"], size["count"], size["engine"]) == (each, count, f"{OWN_TIMER} on the mounted share")
    assert (size["nas_files"], size["nas_bytes"], size["nas_files_left"]) == (count, count * each, 0)
    ops = {o["op"]: o for o in size["ops"]}
    assert list(ops) == ["write", "stat", "read", "delete"]
    for name in ("write", "read"):
        o = ops[name]
        assert o["files"] == count and o["bytes"] == count * each
        assert o["files_per_s"] == pytest.approx(o["files"] / o["seconds"])
        assert o["per_file"]["count"] == o["open"]["count"] == o["close"]["count"] == count
        for p in (o["per_file"], o["open"], o["close"]):
            assert 0 < p["p50_ms"] <= p["p95_ms"] <= p["p99_ms"], p
    batches = [r for r in run["raw"] if r["tool"].startswith("small files ") and r["tool"].endswith(" on desk")]
    assert {r["tool"] for r in batches} >= {f"small files {op} on desk" for op in ops}
    assert all(r["argv"][0] == OWN_TIMER for r in batches if "prepare" not in r["tool"]), [r["argv"] for r in batches]
    assert client["verdict"]["small_files"].startswith(f"copying 4 KiB files: {ops['write']['files_per_s']:,.0f} "
                                                       "files/s"), client["verdict"]["small_files"]
    w, r = ops["write"], ops["read"]
    print(f"mounted share, {count} x 4 KiB: write {w['files_per_s']:,.0f} files/s (p50 {w['per_file']['p50_ms']:.2f} "
          f"p99 {w['per_file']['p99_ms']:.2f} ms), read {r['files_per_s']:,.0f} files/s; {client['verdict']['small_files']}")
