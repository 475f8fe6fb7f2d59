"""Two clients at once over their own 1 Gb/s links: desk and lab join the NAS's own run (system local)
and copy together after the NAS's start barrier, with per-client and aggregate numbers and verdicts,
each client's bytes on the NAS port it reached."""
import contextlib
import os
import re
import signal
import time

import pytest

from tengig.lab import Lab, build_spec

from tengig.server.apikeys import ApiKeyStore

from ..ui.browser import UI_DIST, require_browser, run_scenario
from .joined_harness import commands_of, family_of, join, nas_api, start_run

pytestmark = pytest.mark.lab
ONE_LINK = 117.7e6  # TCP goodput of 1 Gb/s at MTU 1500, bytes/s


@pytest.fixture(scope="module")
def two_links_lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=1g", "lab-nas=1g"]))
    yield lab
    lab.down()


def test_desk_and_lab_join_at_once(two_links_lab, tmp_path):
    """... and the panel the NAS serves, opened in a browser on desk, shows the stored run: its History row
    says two clients at once, its Verdict view the aggregate verdict first, then each client's own."""
    lab = two_links_lab
    require_browser()
    _, key = ApiKeyStore(tmp_path / "apikeys.sqlite3").create("panel-aggregate-test")
    with nas_api(lab, tmp_path, ui_dir=UI_DIST) as (api, urls):
        thread, outcome = start_run(api, {"system": "local", "kind": "smb", "join": 2, "share": "share",
                                          "repeats": 1})
        assert "error" not in outcome, outcome.get("error")
        clients = [join(lab, host, urls[host], outcome["token"]) for host in ("desk", "lab")]
        thread.join(900)
        for host, proc in zip(("desk", "lab"), clients):
            assert proc.wait(30) == 0, (lab.paths.logs / f"test-join-{host}.log").read_text()
        assert "error" not in outcome, outcome["error"]
        result = outcome["result"]
        stored = api.call("tengig.results.get", result["run_id"])
        page = run_scenario("history-aggregate", urls["desk"].replace("ws://", "http://") + "/", key,
                            {"runId": result["run_id"]}, netns=lab.netns("desk"))["facts"]

    report = result["report"]
    by_name = {c["client"]: c for c in report["clients"]}
    assert set(by_name) == {"desk", "lab"}
    ports = {name: c["nas_port"]["ifname"] for name, c in by_name.items()}
    assert ports["desk"] != ports["lab"]  # each reached the NAS over its own cable
    for c in by_name.values():  # each client alone: its own numbers and verdict, bounded by its 1 Gb/s link
        assert c["smb"]["read"]["bytes_per_s"]["median"] < ONE_LINK * 1.01
        read = next(d for d in c["verdict"]["directions"] if d["direction"] == "read")
        assert read["bottleneck"] == "link"
    sc = report["smb_concurrent"]
    assert sorted(sc["clients"]) == ["desk", "lab"] and "start barrier" in sc["engine"]  # in the order they joined
    for d in ("read", "write"):
        together = sc[d]
        # both at once: together more than either alone (one after the other would give less than the faster);
        # a ratio within the run, not a rate a busy machine could miss (run17: 139 MB/s together, two 1 Gb/s links)
        alone = max(together["per_client"][name]["median"] for name in ("desk", "lab"))
        assert together["aggregate"]["median"] > alone, f"{d}: together {together['aggregate']}, alone {alone}"
        assert max(together["start_spread_seconds"]) < 0.5  # the barrier: started together
        for name in ("desk", "lab"):
            assert together["per_client"][name]["median"] < ONE_LINK * 1.01
            assert all(w >= sc["file_size"] for w in together["wire_bytes"][name])  # seen on its NAS port
    assert sc["read"]["arc_hit_ratio"] < 0.2  # the reads came from the pool
    aggregate = report["aggregate_verdict"]
    read = next(d for d in aggregate["directions"] if d["direction"] == "read")
    assert read["smb_bytes_per_s"] == pytest.approx(sc["read"]["aggregate"]["median"])
    links = [c for c in read["ceilings"] if c["component"] == "link"]
    assert links and links[0]["bytes_per_s"] == pytest.approx(2 * ONE_LINK, rel=0.01)  # the NAS's two ports
    assert read["bottleneck"] in ("link", "smb")  # no pool measured in an smb run: the sum of the ports, or SMB
    assert stored["status"] == "success" and stored["results"]["aggregate_verdict"]["summary"] == aggregate["summary"]
    assert not [p for p in lab.share_path.iterdir() if p.name.startswith("tengig-bench")]
    # shown: the panel on desk, from the NAS's own store
    aggregate_summary = stored["results"]["aggregate_verdict"]["summary"]
    assert page["errors"] == [], page
    names = ", ".join(c["client"] for c in report["clients"])  # in the order they joined
    # one line: ... result, margin, bottleneck (the aggregate's, read bounded by the link or SMB as above)
    assert f"2 clients at once ({names})" in page["row"] and "\n" not in page["row"].strip(), page["row"]
    assert re.fullmatch(r"(Link|SMB|read (Link|SMB), write \w+)", page["row"].split("\t")[-1].strip()), page["row"]
    assert page["aggregateHeading"] == "All clients at once"
    assert page["aggregateSummary"] == aggregate_summary
    assert page["clients"] == [c["client"] for c in report["clients"]]  # each under its own name, in run order
    assert page["clientSummaries"] == [c["verdict"]["summary"] for c in report["clients"]]


def test_a_desktop_killed_during_its_copies_leaves_the_others_figures(two_links_lab, tmp_path):
    """desk's client is killed (as a laptop closed mid-copy) during its SMB copies: the run ends naming desk,
    the stored run keeps lab's figures and verdict, and nothing is left on the pool or the share."""
    lab = two_links_lab
    with nas_api(lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, {"system": "local", "kind": "smb", "join": 2, "share": "share",
                                          "repeats": 2})
        assert "error" not in outcome, outcome.get("error")
        desk, other = (join(lab, host, urls[host], outcome["token"]) for host in ("desk", "lab"))
        killed = []
        while thread.is_alive() and not killed:
            family = family_of(desk.pid)
            if any("smbclient" in c for c in commands_of(family)):  # desk is copying
                for pid in family:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                killed = family
            time.sleep(0.05)
        thread.join(900)
        desk.wait(30)
        assert other.wait(60) == 0, (lab.paths.logs / "test-join-lab.log").read_text()
        assert killed, "desk never started its copies"
        assert "error" not in outcome, outcome.get("error")
        report = outcome["result"]["report"]
        stored = api.call("tengig.results.get", outcome["result"]["run_id"])

    by_name = {c["client"]: c for c in report["clients"]}
    assert "desk" in by_name["desk"]["lost"] and by_name["desk"]["verdict"] is None, by_name["desk"]
    assert by_name["lab"]["lost"] is None and by_name["lab"]["smb"]["read"]["bytes_per_s"]["median"] > 0
    read = next(d for d in by_name["lab"]["verdict"]["directions"] if d["direction"] == "read")
    assert read["bottleneck"] == "link"
    assert report["smb_concurrent"] is None and report["aggregate_verdict"] is None  # one desktop cannot
    kept = {c["client"]: c for c in stored["results"]["clients"]}
    assert stored["status"] == "success" and kept["lab"]["verdict"] == by_name["lab"]["verdict"]
    assert stored["verdict"] == by_name["lab"]["verdict"]
    assert report["left_behind"] == []
    datasets = lab.runner.run(["zfs", "list", "-H", "-o", "name"], timeout=30).stdout
    assert "tengig-scratch" not in datasets, datasets
    assert not [p for p in lab.share_path.iterdir() if p.name.startswith("tengig-")]
