"""The verdict from the live system, not from the lab's plan (the issue "The verdict from measured facts
only"). After `lab up` (desk-nas at 1 Gb/s, MTU 1500), a person changes two facts the verdict uses, at
each machine, as one would: the desk-nas cable re-shaped to 100 Mb/s at both ends (a port that
negotiated 100 Mb/s), and desk's port set to MTU 9000 while nas's stays at 1500. The NAS's own run
(system local, desk joined over that cable) must report both as they are now, at both ends, with the
advice those facts call for; the plan still says 1 Gb/s and 1500."""
from __future__ import annotations


import pytest

from tengig.lab.hosts import lab_link
from tengig.lab.network import shape
from tengig.lab.plan import shaping_for

from .joined_harness import CPU_CGROUPS, join, nas_api, smbd_cpu_capped, start_run

pytestmark = pytest.mark.lab


def test_the_verdict_reports_the_live_link_and_mtus_of_both_ends_not_the_plan(shaped_lab, tmp_path):
    cable = shaped_lab.plan().cable("desk", "nas")
    desk, nas = cable.port_of("desk"), cable.port_of("nas")
    assert cable.shaping.line_rate_bps == 1_000_000_000 and cable.mtu == 1500  # what the plan says
    slow = shaping_for(100_000_000, 1500)
    run = shaped_lab.runner.run
    try:
        for port in (desk, nas):  # the lab's own hand at each machine
            shape(shaped_lab.runner, port.netns, port.ifname, slow)
        run(["ip", "-n", desk.netns, "link", "set", "dev", desk.ifname, "mtu", "9000"], timeout=30)
        # what the lab measures itself (a LAGG) reads the cable live too, never from its plan
        assert lab_link(shaped_lab, "desk").line_rate_bps == 100_000_000
        with nas_api(shaped_lab, tmp_path) as (api, urls):
            thread, outcome = start_run(api, {"system": "local", "kind": "net", "join": 1, "net_seconds": 1})
            client = join(shaped_lab, "desk", urls["desk"], outcome["token"], auth=False)
            thread.join(300)
            client.wait(30)
            assert "error" not in outcome, outcome.get("error")
    finally:
        for port in (desk, nas):
            shape(shaped_lab.runner, port.netns, port.ifname, cable.shaping)
        run(["ip", "-n", desk.netns, "link", "set", "dev", desk.ifname, "mtu", str(cable.mtu)], timeout=30)

    report = outcome["result"]["report"]
    c = report["clients"][0]
    # the NAS's end, read from its kernel now: the shaper of 100 Mb/s, its own MTU
    assert c["nas_port"]["shaper_bps"] == pytest.approx(slow.tbf_rate_bps, rel=1e-3)
    assert c["link"]["line_rate_bps"] == 100_000_000 and c["nas_port"]["mtu"] == 1500
    # desk's end, as desk measured it at join: MTU 9000
    assert c["joined"]["mtu"] == 9000
    # and what the NAS's kernel says of its port during the run: full duplex, its link never lost
    assert c["nas_port"]["duplex"] == "full" and c["nas_port"]["carrier_downs"] is not None
    assert c["link_downs"] == 0
    # and the link really carried 100 Mb/s, not the planned 1 Gb/s
    assert all(0 < m["goodput_bps"] <= 1.03 * 94.1e6 for m in c["network"]), c["network"]
    verdict = outcome["result"]["verdict"]
    assert "100 Mb/s" in verdict["summary"] and "1 Gb/s" not in verdict["summary"], verdict["summary"]
    assert all(d["bottleneck"] == "link" for d in verdict["directions"])
    rules = {a["rule"]: a["text"] for a in verdict["advice"]}
    assert "100 Mb/s link" in rules["link-below-target"], rules
    mtu = rules["mtu-mismatch"]
    assert f"desk:{desk.ifname} 9000 bytes" in mtu and f":{nas.ifname} 1500 bytes" in mtu, mtu



@pytest.mark.skipif(not (CPU_CGROUPS / "cpu.cfs_quota_us").exists(), reason="no cgroup v1 cpu controller here")
def test_smbd_held_back_by_a_cpu_limit_is_named_with_the_measured_cause(shaped_lab, tmp_path):
    """The NAS's admin caps smbd at 0.05 cores (as `systemctl set-property smbd CPUQuota=5%` would on a
    TrueNAS SCALE): the verdict names SMB, and as its cause smbd's cgroup, its limit and how often the
    kernel throttled it, all read by the NAS during the copies."""
    with smbd_cpu_capped(shaped_lab, "tg-smbd-held", 5000):  # of the 100000 us period: 0.05 cores
        with nas_api(shaped_lab, tmp_path) as (api, urls):
            thread, outcome = start_run(api, {"system": "local", "kind": "all", "join": 1, "share": "share",
                                              "repeats": 1, "net_seconds": 1, "working_set": 64 * 2**20})
            client = join(shaped_lab, "desk", urls["desk"], outcome["token"])
            thread.join(600)
            client.wait(30)
            assert "error" not in outcome, outcome.get("error")

    smb = outcome["result"]["report"]["clients"][0]["smb"]
    for d in ("read", "write"):
        limit = smb[d]["smbd_cpu_limit"]
        assert limit["cgroup"] == "/tg-smbd-held" and limit["limit_cores"] == pytest.approx(0.05), limit
        assert limit["throttled_percent"] > 50, limit  # the kernel's own count, not an inference
    verdict = outcome["result"]["verdict"]
    slow = [d for d in verdict["directions"] if d["bottleneck"] == "smb"]
    assert slow, verdict["summary"]
    assert "smbd, held back by its CPU limit: its cgroup /tg-smbd-held allows 0.05 of a core" in verdict["summary"]
    advice = {a["rule"]: a["text"] for a in verdict["advice"]}
    assert "Measured: smbd, held back by its CPU limit" in advice["smb-far-below"], advice
    assert "raise or remove the CPU limit" in advice["smb-far-below"]
