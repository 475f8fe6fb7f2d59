"""Record real output of the Linux tools tengig parses (tests/fixtures/{ip,ethtool,ping,kernel-log}).

    make parser-fixtures    # = PYTHONPATH=middleware .venv/bin/python scripts/record_parser_fixtures.py, as root

Needs root, iproute2, ethtool, iputils ping and util-linux dmesg. It touches nothing of the machine's
own network and not the lab: it makes two private network namespaces of its own, tengig-rec-host (the
machine whose tools are read) and tengig-rec-peer (the far ends of its cables), with fixed names, MACs
and addresses so a re-recording changes only what really changes (timings, counters, the kernel log's
times). All traffic stays between those two namespaces, and both are deleted at the end, also when
the recording fails.

tengig-rec-host:
  lo            up
  rec-eth0      veth <-> tengig-rec-peer rec-peer0, 10.99.0.1/24 (peer .2), MTU 1500, up
  rec-jumbo0    veth <-> rec-peer1, 10.99.9.1/24 (peer .2), MTU 9000 both ends (the peer is set to
                1500 later, for the MTU-mismatch ping)
  rec-down0     veth <-> rec-peer2, 10.99.5.1/24, never set up (admin down)
  rec-lonely0   veth <-> rec-peer3, up, its peer kept down (no carrier)
  rec-br0       bridge, 10.99.7.1/24, up; rec-port0 (veth <-> rec-peer4) enslaved to it
  rec-br1       bridge with no ports, up (no carrier)

Every command runs the way tengig runs it (tengig.runner.Runner, `ip netns exec tengig-rec-host ...`);
each fixture directory gets the stdout as `NAME.json`/`NAME.txt`, the stderr (when there was any) as
`NAME.stderr`, and recorded.json: when, the kernel (`uname -r`), the tools' versions, and per NAME
the argv and exit code. The README.md beside it is written by hand. Re-record after a tool or kernel
upgrade and rerun the parser tests (tests/backends/test_linux_recorded.py, tests/mesh/test_ping_recorded.py).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from tengig.runner import Completed, Runner

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
HOST, PEER = "tengig-rec-host", "tengig-rec-peer"
TIMEOUT = 30
MISSING = "rec-nosuch0"  # an interface that exists nowhere
HOST_INTERFACES = ("lo", "rec-eth0", "rec-jumbo0", "rec-down0", "rec-lonely0", "rec-port0", "rec-br0", "rec-br1")

# (host side, peer side, host address, peer address, host mtu, peer mtu, host up, peer up)
CABLES = [
    ("rec-eth0", "rec-peer0", "10.99.0.1/24", "10.99.0.2/24", 1500, 1500, True, True),
    ("rec-jumbo0", "rec-peer1", "10.99.9.1/24", "10.99.9.2/24", 9000, 9000, True, True),
    ("rec-down0", "rec-peer2", "10.99.5.1/24", "10.99.5.2/24", 1500, 1500, False, True),
    ("rec-lonely0", "rec-peer3", None, None, 1500, 1500, True, False),
    ("rec-port0", "rec-peer4", None, "10.99.7.2/24", 1500, 1500, True, True),
]


class Recorder:
    def __init__(self) -> None:
        self.runner = Runner()
        self.dirs: dict[str, dict] = {}

    def sh(self, *argv: str, netns: str | None = None, check: bool = True) -> Completed:
        """Set-up and tear-down steps (not recorded)."""
        return self.runner.run(list(argv), timeout=TIMEOUT, netns=netns, check=check)

    def record(self, directory: str, name: str, argv: list[str], *, ext: str = "txt",
               netns: str | None = HOST, stdout: str | None = None) -> Completed:
        done = self.runner.run(argv, timeout=TIMEOUT, netns=netns, check=False)
        out_dir = FIXTURES / directory
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{name}.{ext}").write_text(done.stdout if stdout is None else stdout)
        err = out_dir / f"{name}.stderr"
        if done.stderr:
            err.write_text(done.stderr)
        elif err.exists():
            err.unlink()
        self.dirs.setdefault(directory, {})[name] = {
            "argv": list(done.argv), "returncode": done.returncode, "stdout": f"{name}.{ext}",
            "stderr": err.name if done.stderr else None,
            **({"note": "stdout: the lines dmesg printed after the recording started"} if stdout is not None else {}),
        }
        print(f"{directory}/{name}: exit {done.returncode}", file=sys.stderr)
        return done

    def write_provenance(self) -> None:
        tools = {
            "ip": self.sh("ip", "-V").stdout.strip(),
            "ethtool": self.sh("ethtool", "--version").stdout.strip(),
            "ping": self.sh("ping", "-V").stdout.strip().splitlines()[0],
            "dmesg": self.sh("dmesg", "--version").stdout.strip(),
        }
        os_release = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
        for directory, commands in self.dirs.items():
            doc = {
                "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "recorded_by": "scripts/record_parser_fixtures.py",
                "os": os_release.get("PRETTY_NAME", "").strip('"'),
                "uname_r": platform.release(),
                "tools": tools,
                "namespaces": [HOST, PEER],
                "commands": commands,
            }
            (FIXTURES / directory / "recorded.json").write_text(json.dumps(doc, indent=2) + "\n")


def build(rec: Recorder) -> None:
    rec.sh("ip", "netns", "add", HOST)
    rec.sh("ip", "netns", "add", PEER)
    for ns in (HOST, PEER):
        rec.sh("ip", "link", "set", "lo", "up", netns=ns)
    for i, (near, far, near_addr, far_addr, near_mtu, far_mtu, near_up, far_up) in enumerate(CABLES):
        rec.sh("ip", "link", "add", near, "address", f"02:74:67:00:00:{2 * i + 1:02x}", "mtu", str(near_mtu), "type",
               "veth", "peer", "name", far, "address", f"02:74:67:00:00:{2 * i + 2:02x}", "mtu", str(far_mtu),
               "netns", PEER, netns=HOST)
        if near_addr:
            rec.sh("ip", "addr", "add", near_addr, "dev", near, netns=HOST)
        if far_addr:
            rec.sh("ip", "addr", "add", far_addr, "dev", far, netns=PEER)
        if far_up:
            rec.sh("ip", "link", "set", far, "up", netns=PEER)
    rec.sh("ip", "link", "add", "rec-br0", "address", "02:74:67:00:00:20", "type", "bridge", netns=HOST)
    rec.sh("ip", "link", "set", "rec-port0", "master", "rec-br0", netns=HOST)
    rec.sh("ip", "addr", "add", "10.99.7.1/24", "dev", "rec-br0", netns=HOST)
    for near, _, _, _, _, _, near_up, _ in CABLES:
        if near_up:
            rec.sh("ip", "link", "set", near, "up", netns=HOST)
    rec.sh("ip", "link", "set", "rec-br0", "up", netns=HOST)
    rec.sh("ip", "link", "add", "rec-br1", "address", "02:74:67:00:00:21", "type", "bridge", netns=HOST)
    rec.sh("ip", "link", "set", "rec-br1", "up", netns=HOST)
    # no bond: this kernel may lack bonding; what `ip` says then is kept in the README, not parsed
    for address in ("10.99.0.2", "10.99.9.2"):  # neighbours resolved and carriers settled before recording
        rec.sh("ping", "-n", "-c", "1", "-W", "2", address, netns=HOST, check=False)
    time.sleep(2)  # the bridge's port leaves listening/learning


def record_ip(rec: Recorder) -> None:
    rec.record("ip", "addr-show", ["ip", "-j", "-d", "addr", "show"], ext="json")
    rec.record("ip", "addr-show-missing-device", ["ip", "-j", "-d", "addr", "show", "dev", MISSING], ext="json")
    rec.record("ip", "link-show", ["ip", "-j", "-d", "link", "show"], ext="json")
    rec.record("ip", "route-get", ["ip", "-j", "route", "get", "10.99.0.2"], ext="json")
    rec.record("ip", "route-get-own-address", ["ip", "-j", "route", "get", "10.99.0.1"], ext="json")
    rec.record("ip", "route-get-unreachable", ["ip", "-j", "route", "get", "192.0.2.1"], ext="json")
    rec.record("ip", "bond-unsupported", ["ip", "link", "add", "rec-bond0", "type", "bond"])


def record_ethtool(rec: Recorder) -> None:
    """`ethtool DEV` -> DEV.txt and `ethtool -i DEV` -> DEV.driver.txt for every interface of the host
    namespace (what linux_nics runs for each) and one that does not exist."""
    for dev in (*HOST_INTERFACES, MISSING):
        rec.record("ethtool", dev, ["ethtool", dev])
        rec.record("ethtool", f"{dev}.driver", ["ethtool", "-i", dev])


def record_ping(rec: Recorder) -> None:
    verify = ["-c", "3", "-i", "0.2", "-W", "1"]  # mesh/verify.py's ping
    df = ["-c", "2", "-i", "0.2", "-W", "1", "-M", "do"]  # and its Don't-Fragment ping
    rec.record("ping", "answered", ["ping", "-n", "-I", "rec-eth0", *verify, "10.99.0.2"])
    rec.record("ping", "once-answered", ["ping", "-n", "-c", "1", "-W", "1", "-I", "rec-eth0", "10.99.0.2"])
    rec.record("ping", "no-neighbour", ["ping", "-n", "-I", "rec-eth0", *verify, "10.99.0.9"])
    rec.record("ping", "once-no-neighbour", ["ping", "-n", "-c", "1", "-W", "1", "-I", "rec-eth0", "10.99.0.9"])
    rec.sh("sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=1", netns=PEER)
    try:
        rec.record("ping", "ignored", ["ping", "-n", "-I", "rec-eth0", *verify, "10.99.0.2"])
    finally:
        rec.sh("sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=0", netns=PEER)
    rec.record("ping", "df-1500", ["ping", "-n", "-I", "rec-eth0", *df, "-s", "1472", "10.99.0.2"])
    rec.record("ping", "df-too-big-for-own-mtu", ["ping", "-n", "-I", "rec-eth0", *df, "-s", "8972", "10.99.0.2"])
    rec.record("ping", "df-9000", ["ping", "-n", "-I", "rec-jumbo0", *df, "-s", "8972", "10.99.9.2"])
    rec.sh("ip", "link", "set", "rec-peer1", "mtu", "1500", netns=PEER)  # one end of the cable back at 1500
    rec.record("ping", "df-9000-peer-at-1500", ["ping", "-n", "-I", "rec-jumbo0", *df, "-s", "8972", "10.99.9.2"])
    rec.record("ping", "unreachable-network", ["ping", "-n", "-c", "1", "-W", "1", "192.0.2.1"])
    rec.record("ping", "missing-interface", ["ping", "-n", "-I", MISSING, *verify, "10.99.0.2"])


def record_ip_stats(rec: Recorder) -> None:
    """After the pings, so the counters are not zero."""
    rec.record("ip", "link-stats", ["ip", "-s", "-j", "link", "show"], ext="json")


def dmesg_lines() -> list[str]:
    return subprocess.run(["dmesg", "--time-format", "iso"], capture_output=True, text=True, check=True).stdout.splitlines()


def record_kernel_log(rec: Recorder, before: list[str]) -> None:
    """Links taken down and up in the host namespace, then the kernel log as nics.py reads it (dmesg is
    the machine's, not the namespace's): only the lines printed since the recording started are kept."""
    steps = [
        (HOST, "rec-eth0", "down"), (HOST, "rec-eth0", "up"),     # admin down/up of a veth
        (PEER, "rec-peer0", "down"), (PEER, "rec-peer0", "up"),   # its carrier lost and back (far end)
        (PEER, "rec-peer4", "down"), (PEER, "rec-peer4", "up"),   # carrier of a bridge port
        (HOST, "rec-port0", "down"), (HOST, "rec-port0", "up"),   # a bridge port set down and up
    ]
    for ns, dev, state in steps:
        rec.sh("ip", "link", "set", dev, state, netns=ns)
        time.sleep(0.5)
    time.sleep(1)
    after = dmesg_lines()
    known = set(before)
    new = [line for line in after if line not in known]
    rec.record("kernel-log", "link-changes", ["dmesg", "--time-format", "iso"], netns=None,
               stdout="".join(f"{line}\n" for line in new))
    for dev in (*HOST_INTERFACES, MISSING):  # what linux_nics counts flaps by (sysfs of the namespace)
        rec.record("kernel-log", f"{dev}.carrier_down_count", ["cat", f"/sys/class/net/{dev}/carrier_down_count"])
    if Path("/proc/sys/kernel/dmesg_restrict").read_text().strip() == "1":
        rec.record("kernel-log", "unprivileged", ["runuser", "-u", "nobody", "--", "dmesg", "--time-format", "iso"],
                   netns=None)


def teardown(rec: Recorder) -> None:
    for ns in (HOST, PEER):
        rec.sh("ip", "netns", "del", ns, check=False)


def main() -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    if os.geteuid() != 0:
        print("needs root (network namespaces)", file=sys.stderr)
        return 2
    rec = Recorder()
    teardown(rec)  # a previous run that died half-way
    before = dmesg_lines()
    try:
        build(rec)
        record_ip(rec)
        record_ethtool(rec)
        record_ping(rec)
        record_ip_stats(rec)
        record_kernel_log(rec, before)
        rec.write_provenance()
    finally:
        teardown(rec)
    left = [ns for ns in rec.sh("ip", "netns", "list").stdout.split() if ns.startswith("tengig-rec-")]
    if left:
        print(f"namespaces left behind: {left}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
