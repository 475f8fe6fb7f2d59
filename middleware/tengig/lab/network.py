"""Build the lab's hosts and cables: namespaces, veth pairs, MTU, tbf shaping, addresses, hosts files."""
from __future__ import annotations

import json

from ..runner import Runner
from .paths import LabPaths
from .plan import LabPlan, Shaping, netns_name, render_hosts_file

T = 10  # seconds: every ip/tc call is quick


def create_hosts(plan: LabPlan, runner: Runner, paths: LabPaths) -> None:
    for host in plan.spec.hosts:
        ns = netns_name(host)
        runner.run(["ip", "netns", "add", ns], timeout=T)
        runner.run(["ip", "-n", ns, "link", "set", "lo", "up"], timeout=T)
        etc = paths.netns_etc_dir(ns)
        etc.mkdir(parents=True, exist_ok=True)
        (etc / "hosts").write_text(render_hosts_file(host, plan.hosts_entries[host]))


def create_cables(plan: LabPlan, runner: Runner) -> None:
    for cable in plan.cables:
        a, b = cable.a, cable.b
        # Both ends are created directly inside their namespaces: nothing ever lands in the root one.
        runner.run(
            ["ip", "link", "add", a.ifname, "netns", a.netns, "mtu", str(cable.mtu), "type", "veth",
             "peer", "name", b.ifname, "netns", b.netns, "mtu", str(cable.mtu)],
            timeout=T,
        )
        for port in (a, b):
            if port.address:
                runner.run(["ip", "-n", port.netns, "addr", "add", port.address, "dev", port.ifname], timeout=T)
            runner.run(["ip", "-n", port.netns, "link", "set", port.ifname, "up"], timeout=T)
            if cable.shaping:
                shape(runner, port.netns, port.ifname, cable.shaping)


def shape(runner: Runner, netns: str, ifname: str, shaping: Shaping) -> None:
    runner.run(
        ["tc", "-n", netns, "qdisc", "replace", "dev", ifname, "root", "tbf",
         "rate", f"{shaping.tbf_rate_bps}bit", "burst", f"{shaping.burst_bytes}b",
         "latency", f"{shaping.latency_ms}ms"],
        timeout=T,
    )


def read_port(runner: Runner, netns: str, ifname: str) -> dict:
    """What the kernel says about one lab port: state, MTU, addresses, tbf rate (bits/s) or None."""
    link = json.loads(runner.run(["ip", "-n", netns, "-j", "addr", "show", "dev", ifname], timeout=T).stdout)[0]
    qdiscs = json.loads(runner.run(["tc", "-n", netns, "-j", "qdisc", "show", "dev", ifname], timeout=T).stdout)
    tbf = next((q for q in qdiscs if q.get("kind") == "tbf"), None)
    rate = int(tbf["options"]["rate"]) * 8 if tbf else None  # tc -j prints bytes per second
    return {
        "operstate": link.get("operstate"),
        "mtu": link.get("mtu"),
        "addresses": [f"{a['local']}/{a['prefixlen']}" for a in link.get("addr_info", []) if a.get("family") == "inet"],
        "tbf_rate_bps": rate,
    }

