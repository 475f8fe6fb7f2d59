"""A desktop without iproute2 and without smbclient takes part, as a Mac does (issue 26, item 2): on the lab,
desk joins the NAS's run with `ip` absent from its PATH (every other program there) and copies through
the NAS's share mounted on desk (smbnetfs, FUSE: tests/bench/mounted_share.py) with `--mount`. The same
run with smbclient comes first; both verdicts name the 1 Gb/s link, and each SMB figure is what the link
carries."""
from __future__ import annotations

import pytest

from tengig.lab.nas_tengig import join_argv
from tengig.units import MiB

from .joined_harness import join, nas_api, start_run
from .mounted_share import path_without_iproute2, smbnetfs_share

pytestmark = pytest.mark.lab
REQUEST = {"system": "local", "kind": "all", "join": 1, "share": "share", "repeats": 2, "net_seconds": 2,
           "working_set": 128 * MiB}


def _finish(lab, thread, outcome, desk, log: str) -> dict:
    thread.join(600)
    assert desk.wait(60) == 0, (lab.paths.logs / log).read_text()[-3000:]
    assert "error" not in outcome, outcome.get("error")
    return outcome["result"]


def _read(result: dict) -> dict:
    return next(d for d in result["verdict"]["directions"] if d["direction"] == "read")


def test_desk_joins_without_ip_and_copies_through_a_mounted_share_with_smbclients_verdict(shaped_lab, tmp_path):
    with nas_api(shaped_lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, REQUEST)
        with_smbclient = _finish(shaped_lab, thread, outcome, join(shaped_lab, "desk", urls["desk"], outcome["token"]),
                                 "test-join-desk.log")
        no_ip = path_without_iproute2(tmp_path / "bin")
        with smbnetfs_share(shaped_lab, "desk", tmp_path / "home") as share:
            thread, outcome = start_run(api, REQUEST)
            argv = ["env", f"PATH={no_ip}", *join_argv(shaped_lab, "desk", urls["desk"], outcome["token"], smb=False),
                    "--mount", str(share)]
            desk = shaped_lab.spawn("desk", argv, log_name="test-join-desk-mount.log")
            mounted = _finish(shaped_lab, thread, outcome, desk, "test-join-desk-mount.log")
            run = api.call("tengig.results.get", mounted["run_id"])
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
        assert result["report"]["clients"][0]["smb"]["read"]["bytes_per_s"]["median"] / MiB == pytest.approx(110, rel=0.06)
    print(f"SMB read, median: smbclient {with_smbclient['report']['clients'][0]['smb']['read']['bytes_per_s']['median'] / MiB:.1f}"
          f" MiB/s, mounted share {smb['read']['bytes_per_s']['median'] / MiB:.1f} MiB/s; write: smbclient "
          f"{with_smbclient['report']['clients'][0]['smb']['write']['bytes_per_s']['median'] / MiB:.1f}, mounted "
          f"{smb['write']['bytes_per_s']['median'] / MiB:.1f} MiB/s; how: {copies[0]['stdout'].strip()}")


def test_desks_own_disk_is_the_target_its_verdict_names_with_the_measured_figures(shaped_lab, tmp_path):
    """`--disk PATH` (issue 26, item 3): after its copies, desk writes then reads a file of their size in PATH
    (fio, direct I/O); the report holds what it measured, and a verdict against it beside the run's target."""
    disk = tmp_path / "own-disk"
    disk.mkdir()
    with nas_api(shaped_lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, {**REQUEST, "kind": "smb"})
        argv = [*join_argv(shaped_lab, "desk", urls["desk"], outcome["token"]), "--disk", str(disk)]
        desk = shaped_lab.spawn("desk", argv, log_name="test-join-desk-disk.log")
        result = _finish(shaped_lab, thread, outcome, desk, "test-join-desk-disk.log")
        run = api.call("tengig.results.get", result["run_id"])
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
