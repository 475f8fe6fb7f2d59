"""A path that loses 2% of what the NAS sends to desk, measured by tengig on the NAS (system local) with desk
joined over its cable: the read's retransmits are the NAS's own count (its iperf3 server is the sender), and
the verdict names the loss with its share, whatever the throughput did.

The packets are lost on the way, as a lossy cable or switch loses them: dropped as they arrive in desk's
namespace (iptables INPUT). The same rule in the NAS's own OUTPUT chain drops them before the NAS's TCP let go of
them, which TCP counts as not sent rather than resent: 0 retransmits on both ends (tests/fixtures/iperf3/README.md)."""
import shutil

import pytest

from .joined_harness import join, nas_api, start_run

pytestmark = [pytest.mark.lab,
              pytest.mark.skipif(shutil.which("iptables") is None, reason="iptables is not installed (apt)")]


@pytest.fixture
def lossy_to_desk(shaped_lab):
    """2% of the packets desk receives from the NAS dropped as they arrive; the rule removed afterwards."""
    port = shaped_lab.plan().cable("desk", "nas").port_of("desk")
    rule = ["INPUT", "-i", port.ifname, "-m", "statistic", "--mode", "random", "--probability", "0.02", "-j", "DROP"]
    shaped_lab.run("desk", ["iptables", "-A", *rule], timeout=30)
    try:
        yield shaped_lab
    finally:
        shaped_lab.run("desk", ["iptables", "-D", *rule], timeout=30)


def test_a_read_over_a_lossy_path_counts_the_nas_retransmits_and_the_verdict_names_the_loss(lossy_to_desk, tmp_path):
    lab = lossy_to_desk
    with nas_api(lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, {"system": "local", "kind": "net", "join": 1, "repeats": 1,
                                          "net_seconds": 2, "streams": 4})
        desk = join(lab, "desk", urls["desk"], outcome["token"])
        thread.join(600)
        assert desk.wait(30) == 0, (lab.paths.logs / "test-join-desk.log").read_text()[-3000:]
        assert "error" not in outcome, outcome["error"]
    client = outcome["result"]["report"]["clients"][0]
    reads = [m for m in client["network"] if m["direction"] == "read"]
    assert reads, client["network_skipped"]
    for m in reads:
        assert m["retransmits_by"] == "nas's own iperf3 server"  # the sender's count, not desk's word
        assert m["retransmits"] > 0 and m["segments_sent"] > m["retransmits"], m
    verdict = outcome["result"]["verdict"]
    assert "the path loses packets: nas's own iperf3 server (the sender) resent" in verdict["summary"]
    [advice] = [a for a in verdict["advice"] if a["rule"] == "path-loses-packets"]
    assert "read: " in advice["text"] and "of the segments nas's own iperf3 server sent" in advice["text"]
