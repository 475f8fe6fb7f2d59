"""The verdict from the live system, not from the lab's plan (the issue "The verdict from measured facts
only"). After `lab up` (desk-nas at 1 Gb/s, MTU 1500), a person changes two facts the verdict uses, at
each machine, as one would: the desk-nas cable re-shaped to 100 Mb/s at both ends (a port that
negotiated 100 Mb/s), and desk's port set to MTU 9000 while nas's stays at 1500. The NAS's own run
(system local, desk joined over that cable) must report both as they are now, at both ends, with the
advice those facts call for; the plan still says 1 Gb/s and 1500."""
from __future__ import annotations

import pytest

from tengig.lab.network import shape
from tengig.lab.plan import shaping_for

from .joined_harness import join, nas_api, start_run


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
    # and the link really carried 100 Mb/s, not the planned 1 Gb/s
    assert all(m["goodput_bps"] == pytest.approx(94e6, rel=0.08) for m in c["network"]), c["network"]
    verdict = outcome["result"]["verdict"]
    assert "100 Mb/s" in verdict["summary"] and "1 Gb/s" not in verdict["summary"], verdict["summary"]
    assert all(d["bottleneck"] == "link" for d in verdict["directions"])
    rules = {a["rule"]: a["text"] for a in verdict["advice"]}
    assert "100 Mb/s link" in rules["link-below-target"], rules
    mtu = rules["mtu-mismatch"]
    assert f"desk:{desk.ifname} 9000 bytes" in mtu and f":{nas.ifname} 1500 bytes" in mtu, mtu
