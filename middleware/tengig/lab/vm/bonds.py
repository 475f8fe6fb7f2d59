"""A LAGG on the VM lab's nas, made by tengig's own apply (`tengig lagg apply`, system local, the
Linux iproute2 backend) inside the VM, with desk's far end playing what the plan's topology puts there,
and measured by tengig's LAGG verify (lagg.measure.measure_lagg) from desk.

desk's end is made with plain iproute2 (it is the world around the NAS, not tengig's doing):
- LACP: an 802.3ad bond hashing layer3+4 (the peer that bonds the same way, or an LACP switch);
- ROUNDROBIN: balance-xor hashing layer2, which sends everything for nas's one MAC through one cable:
  what an unmanaged switch does (seed 002's "round-robin balances only what the host sends");
- FAILOVER: active-backup."""
from __future__ import annotations

import threading
import time

from ...bench.context import BenchContext
from ...bench.phases.network import LinkUnderTest, NetMeasurement, measure
from ...errors import TengigError
from ...backends.linux.link_stats import IP_LINK_STATS_ARGV, ip_link_bytes, parse_ip_link_stats
from ...lagg.measure import measure_lagg
from ...lagg.models import LaggPlan
from ...lagg.verify import LaggVerdict, VerifyRequest
from .machines import CABLES, VmLab, python_in_vm

BOND = "bond1"
NAS_ADDRESS = "10.77.0.1"
DESK_ADDRESS = "10.77.0.2"
PREFIX = 24
APPLY_TIMEOUT_S = 300
LACP_TIMEOUT_S = 60
FAR_END = {
    "LACP": ["mode", "802.3ad", "xmit_hash_policy", "layer3+4", "lacp_rate", "fast", "miimon", "100"],
    "ROUNDROBIN": ["mode", "balance-xor", "xmit_hash_policy", "layer2", "miimon", "100"],
    "FAILOVER": ["mode", "active-backup", "miimon", "100"],
}
MEMBERS = [f"eth{i}" for i in range(CABLES)]


def apply_on_nas(lab: VmLab, *, topology: str, goal: str = "aggregate-many-clients", clients: int = 1,
                 protocol: str | None = None) -> LaggPlan:
    """`tengig lagg apply --json` in nas (its own ports, its own kernel); the plan it applied."""
    argv = [*python_in_vm(), "-m", "tengig", "lagg", "apply", "--json", "--platform", "linux", "--topology", topology,
            "--goal", goal, "--clients", str(clients), "--address", f"{NAS_ADDRESS}/{PREFIX}"]
    for member in MEMBERS:
        argv += ["--member", member]
    if protocol:
        argv += ["--protocol", protocol]
    done = lab.hosts.run("nas", argv, timeout=APPLY_TIMEOUT_S)
    return LaggPlan.model_validate_json(done.stdout)


def far_end(lab: VmLab, protocol: str) -> None:
    """desk's bond over its ends of the cables, as the plan's topology has it (module docstring)."""
    run = lab.hosts.run
    run("desk", ["modprobe", "bonding", "max_bonds=0"], timeout=30)
    run("desk", ["ip", "link", "add", BOND, "type", "bond", *FAR_END[protocol]], timeout=30)
    for member in MEMBERS:
        run("desk", ["ip", "link", "set", member, "down"], timeout=30)
        run("desk", ["ip", "link", "set", member, "master", BOND], timeout=30)
    run("desk", ["ip", "addr", "add", f"{DESK_ADDRESS}/{PREFIX}", "dev", BOND], timeout=30)
    run("desk", ["ip", "link", "set", BOND, "up"], timeout=30)


def bonding(lab: VmLab, host: str) -> str:
    """The kernel's own account of the bond: /proc/net/bonding/bond1."""
    return lab.hosts.run(host, ["cat", f"/proc/net/bonding/{BOND}"], timeout=30).stdout


def aggregators(text: str) -> dict[str, str]:
    """/proc/net/bonding text -> {member: its Aggregator ID} (802.3ad)."""
    return {m: fields.get("Aggregator ID", "") for m, fields in _members(text).items()}


def port_states(text: str) -> dict[str, tuple[int, int]]:
    """/proc/net/bonding text -> {member: (actor's LACP port state, partner's)} (802.3ad)."""
    return {m: (int(f.get("actor port state", "0")), int(f.get("partner port state", "0")))
            for m, f in _members(text).items()}


def _members(text: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    member, pdu = None, ""
    for line in text.splitlines():
        key, _, value = line.strip().partition(":")
        if line.startswith("Slave Interface:"):
            member, pdu = value.strip(), ""
            out[member] = {}
        elif member and key in ("details actor lacp pdu", "details partner lacp pdu"):
            pdu = key.split()[1] + " "
        elif member and value:
            out[member][pdu + key if key == "port state" else key] = value.strip()
    return out


# LACP port state bits: in sync, collecting, distributing (IEEE 802.1AX): the member carries traffic.
IN_USE = 0x08 | 0x10 | 0x20


def wait_lacp(lab: VmLab) -> str:
    """Until LACP put both of nas's members in one aggregator, each in sync, collecting and distributing
    on both ends (a member joining later moves flows between members mid-test); nas's bonding text."""
    deadline = time.monotonic() + LACP_TIMEOUT_S
    while True:
        text = bonding(lab, "nas")
        ids, states = aggregators(text), port_states(text)
        if (len(ids) == len(MEMBERS) and len(set(ids.values())) == 1
                and all(a & IN_USE == IN_USE and p & IN_USE == IN_USE for a, p in states.values())):
            return text
        if time.monotonic() > deadline:
            raise TengigError(f"LACP did not aggregate both members within {LACP_TIMEOUT_S} s:\n{text}")
        time.sleep(1)


def remove_bonds(lab: VmLab) -> None:
    """Both VMs back to plain ports (no bond, members up)."""
    for host in ("nas", "desk"):
        lab.hosts.run(host, ["ip", "link", "del", BOND], timeout=30, check=False)
        for member in MEMBERS:
            lab.hosts.run(host, ["ip", "link", "set", member, "up"], timeout=30)


def verify(lab: VmLab, plan: LaggPlan, *, seconds: int, omit: int) -> tuple[VerifyRequest, LaggVerdict, BenchContext]:
    """tengig's LAGG verify from desk to nas's bond: iperf3 read/write x 1/N flows, member counters in nas."""
    ctx = BenchContext(lab.hosts)
    request, verdict = measure_lagg(ctx, plan, nas="nas", port_bytes=ip_link_bytes, client="desk", lagg_address=NAS_ADDRESS,
                                    client_address=DESK_ADDRESS, seconds=seconds, omit=omit)
    return request, verdict, ctx


def _tx(lab: VmLab, member: str) -> int:
    return parse_ip_link_stats(lab.hosts.run("nas", list(IP_LINK_STATS_ARGV), timeout=30).stdout)[member][1]


def pull_during_flow(lab: VmLab, *, port: int, seconds: int, after_bytes: int) -> tuple[NetMeasurement, dict[str, int]]:
    """One iperf3 flow from nas to desk over the bond; once nas's eth{port} has sent ``after_bytes`` of it,
    that cable is pulled (both ends lose the carrier). The flow's measurement and the bytes each member
    sent while it ran."""
    before = {m: _tx(lab, m) for m in MEMBERS}
    link = LinkUnderTest(name=BOND, client="desk", server="nas", server_address=NAS_ADDRESS,
                         client_address=DESK_ADDRESS, line_rate_bps=None)
    result: dict = {}

    def one_flow() -> None:
        try:
            result["m"] = measure(BenchContext(lab.hosts), link, direction="read", seconds=seconds, omit=0)
        except Exception as exc:  # raised in the caller's thread below
            result["error"] = exc
    flow = threading.Thread(target=one_flow)
    flow.start()
    try:
        while flow.is_alive() and _tx(lab, MEMBERS[port]) - before[MEMBERS[port]] < after_bytes:
            time.sleep(0.1)
        lab.set_cable(port, False)
    finally:
        flow.join()
    if "error" in result:
        raise result["error"]
    return result["m"], {m: _tx(lab, m) - before[m] for m in MEMBERS}
