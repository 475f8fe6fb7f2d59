"""Each advice rule fires on its own fact and on no other (issue "The verdict from measured facts only").

One table, CASES: per row a rule, the fault (its own fact, bad) that makes it fire on top of a HEALTHY
setup that draws no advice, and the one change (fix) that sets a fact of the fault right again. From it:
  - the fault fires the rule, and nothing else (the crypto notes come with smb-far-below, which they need);
  - the advice names the row's numbers with their units;
  - the fix silences it, even with every unrelated rule's fault present (someone else's bad fact is not its own);
  - each fact of the fault made unknown (None, no MTUs, no ceiling) silences it too.
Each rule in the registry (RULES) is run on every row's fault and must give one id that has rows here:
a new rule without its wrong-fact row fails, and so does a row whose rule left the registry.
"""
import re
from dataclasses import dataclass, field

import pytest

from tengig.verdict.advice import DIRECTIONS, RULES, SINGLE_STREAM_LOW_RATIO, SMB_FAR_BELOW_RATIO, advise
from tengig.verdict.ceilings import tcp_goodput_bps
from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts, PathRetransmits
from tengig.verdict.targets import find_target

MB = 10**6
G = 10**9
UNIT = re.compile(r"\d( (MB/s|Gb/s|Mb/s|bytes|time\(s\)|ms|files/s|KiB)|%)")
# Both directions have a figure (560 MB/s read, 530 MB/s write), so per-direction rules can be tried in each.
SSD = find_target("ssd-sata-870-evo")


@dataclass(frozen=True)
class Estimated:
    """A ceiling computed from physics, not measured (a plain number in a scenario is a measurement)."""

    bytes_per_s: float


def goodput(line_rate_bps: float) -> Estimated:
    """The link's TCP goodput at MTU 1500 bytes, bytes/s: 1 Gb/s -> 117.7 MB/s, 10 Gb/s -> 1176.9 MB/s."""
    return Estimated(tcp_goodput_bps(line_rate_bps) / 8)


NETWORK = 1170 * MB  # iperf3 over the 10 Gb/s link, both directions


def resent(direction: str, retransmits: int, sender: str = "nas's own iperf3 server") -> PathRetransmits:
    """One stream's iperf3 test of 2,000,000 segments, the sender's count of those it sent again."""
    return PathRetransmits(direction=direction, streams=1, retransmits=retransmits, segments=2_000_000, sender=sender)


CLEAN = [resent("read", 400), resent("write", 12, "desk's iperf3 client")]  # 0.02%: a clean link's most
MULTI = 9.6e9  # iperf3 with N streams, bits/s

# A scenario: (component, direction) -> the ceiling's bytes/s (None: not measured), plus Facts fields by name.
# 10 Gb/s end to end, pool and SMB fast, nothing on that any rule warns about: no advice (checked below).
HEALTHY = {
    ("pool", "read"): 1500 * MB,
    ("pool", "write"): 1500 * MB,
    ("link", "read"): goodput(10 * G),
    ("link", "write"): goodput(10 * G),
    ("network", "read"): NETWORK,
    ("network", "write"): NETWORK,
    ("smb", "read"): 1100 * MB,
    ("smb", "write"): 1000 * MB,
    "link_negotiated_bps": None,  # the link ceilings above are given; rows that need the speed set it
    "link_capable_bps": None,
    "mtus": {"nas:eth1": 1500, "desk:eth0": 1500},
    "net_single_stream_bps": 9.4e9,
    "net_multi_stream_bps": MULTI,
    "net_retransmits": CLEAN,
    "smb_signing": False,
    "smb_encryption": False,
    "smbd_cpu_percent": 60.0,
    "client_name": "desk",
    "client_cpu_cores": 0.4,  # desk's SMB client, of the one core a copy may use
    "client_cpus": 4.0,
    "smbd_cpu_limit_cores": None,
    "duplex": "full",
    "link_downs": 0,
    "lagg_protocol": None,
    "lagg_members": None,
    "smb_multichannel": False,  # TrueNAS's default: nothing here needs it (one NIC each end, smbd not busy)
    "smb_channels": 1,
    "nas_smb_nics": 1,
    "nas_truenas": None,
    "pool_member_wait_ms": {"sdb": 6.0, "sdc": 6.2},  # the thread sweep: members alike
    "pool_member_busy_percent": {"sdb": 30.0, "sdc": 32.0},
    "pool_one_thread_bps": {"read": 1500 * MB, "write": 1500 * MB},  # one thread as good as any
    "pool_best_thread_bps": {"read": 1500 * MB, "write": 1500 * MB},
    "pool_best_threads": {"read": 1, "write": 1},
    "nas_ports_bps": [],
    # 4 KiB files at 2,000 files/s, 0.50 ms each: the link's 3 round trips of 0.05 ms are 30% of that, smbd calm
    "small_file_size": 4096,
    "small_files_per_s": 2000.0,
    "small_file_ms": 0.5,
    "small_files_smbd_cpu_percent": 40.0,
    "round_trip_ms": 0.05,
}


def unknown(key):
    """What a scenario holds for a fact nobody could read: an empty mapping or list (no MTUs, no member, no
    sweep, no retransmits counted), no ceiling, None."""
    value = HEALTHY.get(key)
    return {} if isinstance(value, dict) else [] if isinstance(value, list) else None


@dataclass(frozen=True)
class Case:
    rule: str
    why: str  # what the fix makes true, e.g. "negotiated equals capable"
    fault: dict  # the rule's own facts, bad: on HEALTHY they make it fire
    fix: dict  # one fact of the fault (or of given) changed to a value that must silence the rule
    says: tuple[str, ...]  # numbers with their units the advice must name
    given: dict = field(default_factory=dict)  # context the text uses but the rule does not fire on


CASES = (
    Case("link-down-during-run", "the link stayed up",
         fault={"link_downs": 2}, fix={"link_downs": 0},
         says=("lost its link 2 time(s) during the run",)),
    Case("half-duplex", "full duplex",
         given={"link_negotiated_bps": 10 * G}, fault={"duplex": "half"}, fix={"duplex": "full"},
         says=("half duplex at 10 Gb/s",)),
    Case("link-negotiated-low", "negotiated equals capable",
         fault={"link_negotiated_bps": 10 * G, "link_capable_bps": 25 * G}, fix={"link_negotiated_bps": 25 * G},
         says=("negotiated 10 Gb/s", "can do 25 Gb/s", "1176.9 MB/s instead of 2942.1 MB/s")),
    Case("link-negotiated-low", "capable equals negotiated",
         fault={"link_negotiated_bps": 10 * G, "link_capable_bps": 25 * G}, fix={"link_capable_bps": 10 * G},
         says=("1176.9 MB/s instead of 2942.1 MB/s",)),
    Case("link-below-target", "write: a 5 Gb/s link beats 530 MB/s",
         fault={("link", "write"): goodput(2.5 * G)}, fix={("link", "write"): goodput(5 * G)},
         says=("at most 294.2 MB/s (estimated)", "530.0 MB/s write", "a 5 Gb/s link (588.4 MB/s")),
    Case("link-below-target", "read: a 5 Gb/s link beats 560 MB/s",
         fault={("link", "read"): goodput(2.5 * G)}, fix={("link", "read"): goodput(5 * G)},
         says=("at most 294.2 MB/s (estimated)", "560.0 MB/s read", "a 10 Gb/s link (1176.9 MB/s")),
    Case("loses-at-its-bound", "write: SMB beats the target",
         fault={("network", "write"): 520 * MB, ("smb", "write"): 510 * MB}, fix={("smb", "write"): 1000 * MB},
         says=("SMB write 510.0 MB/s loses to 530.0 MB/s by 3.8% at 98% of the 520.0 MB/s the network allows",
               "until it carries 594.4 MB/s")),
    Case("loses-at-its-bound", "read, all clients at once: SMB beats the target",
         given={"nas_ports_bps": [int(2.5 * G), int(2.5 * G)]},
         fault={("link", "read"): Estimated(2 * goodput(2.5 * G).bytes_per_s), ("smb", "read"): 550 * MB},
         fix={("smb", "read"): 1100 * MB},
         says=("SMB read 550.0 MB/s loses to 560.0 MB/s by 1.8% at 93% of the 588.4 MB/s (estimated) the link",
               "a third 2.5 Gb/s port, or 5 Gb/s ports, would carry 588.4 -> 882.6 / 1176.9 MB/s")),
    Case("mtu-mismatch", "MTUs equal",
         fault={"mtus": {"nas:eth1": 9000, "desk:eth0": 1500}}, fix={"mtus": {"nas:eth1": 9000, "desk:eth0": 9000}},
         says=("desk:eth0 1500 bytes, nas:eth1 9000 bytes", "MTU-28 bytes payload (ping -M do -s 8972 <peer>")),
    Case("mtu-mismatch", "one interface known",
         fault={"mtus": {"nas:eth1": 9000, "desk:eth0": 1500}}, fix={"mtus": {"nas:eth1": 9000}},
         says=("desk:eth0 1500 bytes, nas:eth1 9000 bytes",)),
    Case("single-stream-low", "one stream close to N streams",
         fault={"net_single_stream_bps": 5.34e9, "net_multi_stream_bps": MULTI}, fix={"net_single_stream_bps": 9.4e9},
         says=("one TCP stream reached 5.34 Gb/s (667.5 MB/s)", "several streams 9.6 Gb/s (1200.0 MB/s)")),
    Case("single-stream-low", "one stream at exactly the ratio of N streams",
         fault={"net_single_stream_bps": 5.34e9, "net_multi_stream_bps": MULTI},
         fix={"net_single_stream_bps": SINGLE_STREAM_LOW_RATIO * MULTI},
         says=("5.34 Gb/s",)),
    Case("single-stream-low", "N streams no faster than one",
         fault={"net_single_stream_bps": 5.34e9, "net_multi_stream_bps": MULTI}, fix={"net_multi_stream_bps": 5.34e9},
         says=("9.6 Gb/s",)),
    Case("path-loses-packets", "the read's sender resends as a clean link does",
         fault={"net_retransmits": [resent("read", 42_000), CLEAN[1]]}, fix={"net_retransmits": CLEAN},
         says=("read: 2.10% of the segments nas's own iperf3 server sent (1 stream)", "under 0.1%")),
    Case("path-loses-packets", "the write's sender resends as a clean link does",
         fault={"net_retransmits": [CLEAN[0], resent("write", 42_000, "desk's iperf3 client")]},
         fix={"net_retransmits": CLEAN},
         says=("write: 2.10% of the segments desk's iperf3 client sent (1 stream)",)),
    Case("ceiling-below-smb", "the pool measured above what SMB wrote",
         fault={("pool", "write"): 100 * MB}, fix={("pool", "write"): 1500 * MB},
         says=("SMB write 1000.0 MB/s through the pool's 100.0 MB/s",)),
    # the pool above SMB's 1100 MB/s read: a pool SMB passed more than through it is no bound (verdict/overrun.py)
    Case("pool-below-network", "pool above the network",
         fault={("pool", "read"): 1150 * MB}, fix={("pool", "read"): 1500 * MB},
         says=("pool read 1150.0 MB/s < network 1170.0 MB/s",)),
    Case("pool-below-network", "pool equal to the network",
         fault={("pool", "read"): 1150 * MB}, fix={("pool", "read"): NETWORK},
         says=("pool read 1150.0 MB/s",)),
    Case("pool-below-network", "no network measured: a measured network below the pool",
         given={("network", "read"): None}, fault={("pool", "read"): 1150 * MB},
         fix={("network", "read"): 1120 * MB},
         says=("pool read 1150.0 MB/s < link 1176.9 MB/s (estimated)",)),
    Case("smb-far-below", "SMB close to the chain",
         fault={("smb", "read"): 150 * MB}, fix={("smb", "read"): 1100 * MB},
         says=("SMB read 150.0 MB/s is 13% of the 1170.0 MB/s the network allows",)),
    Case("smb-far-below", "SMB at exactly the ratio of the chain",
         fault={("smb", "read"): 150 * MB}, fix={("smb", "read"): SMB_FAR_BELOW_RATIO * NETWORK},
         says=("SMB read 150.0 MB/s",)),
    Case("smb-far-below", "SMB estimated, not measured",
         fault={("smb", "read"): 150 * MB}, fix={("smb", "read"): Estimated(150 * MB)},
         says=("SMB read 150.0 MB/s",)),
    Case("client-cpu", "the client used less than the core it may use",
         fault={("smb", "read"): 150 * MB, "client_cpu_cores": 0.98}, fix={"client_cpu_cores": 0.4},
         says=("SMB read 150.0 MB/s",)),
    Case("client-cpu", "SMB close to the chain",
         fault={("smb", "read"): 150 * MB, "client_cpu_cores": 0.98}, fix={("smb", "read"): 1100 * MB},
         says=("SMB read 150.0 MB/s",)),
    Case("client-cpu", "its cgroup's fifth of a core raised to two CPUs",
         given={"client_cpus": 0.2}, fault={("smb", "write"): 150 * MB, "client_cpu_cores": 0.19},
         fix={"client_cpus": 2.0},
         says=("SMB write 150.0 MB/s",)),
    Case("smb-encryption", "encryption off",
         fault={("smb", "read"): 150 * MB, "smb_encryption": True}, fix={"smb_encryption": False},
         says=("SMB read 150.0 MB/s",)),
    Case("smb-encryption", "SMB not far below the chain",
         fault={("smb", "read"): 150 * MB, "smb_encryption": True}, fix={("smb", "read"): 1100 * MB},
         says=("SMB read 150.0 MB/s",)),
    Case("smb-signing", "signing off",
         fault={("smb", "read"): 150 * MB, "smb_signing": True}, fix={"smb_signing": False},
         says=("SMB read 150.0 MB/s",)),
    Case("smb-signing", "SMB not far below the chain",
         fault={("smb", "read"): 150 * MB, "smb_signing": True}, fix={("smb", "read"): 1100 * MB},
         says=("SMB read 150.0 MB/s",)),
    Case("smb-signing", "write: SMB close to the chain",
         fault={("smb", "write"): 150 * MB, "smb_signing": True}, fix={("smb", "write"): 1000 * MB},
         says=("SMB write 150.0 MB/s",)),
    Case("lagg-single-flow", "LAGG not per-flow",
         given={"link_negotiated_bps": 10 * G}, fault={"lagg_protocol": "LACP", "lagg_members": 2},
         fix={"lagg_protocol": "ROUNDROBIN"},
         says=("never exceeds one member (10 Gb/s, 1176.9 MB/s goodput, estimated)",)),
    Case("lagg-single-flow", "one member",
         given={"link_negotiated_bps": 10 * G}, fault={"lagg_protocol": "LACP", "lagg_members": 2},
         fix={"lagg_members": 1},
         says=("(10 Gb/s, 1176.9 MB/s goodput, estimated)",)),
    Case("lagg-single-flow", "FAILOVER replaced by NONE",
         given={"link_negotiated_bps": 10 * G}, fault={"lagg_protocol": "failover", "lagg_members": 2},
         fix={"lagg_protocol": "NONE"},
         says=("one member at a time (10 Gb/s, 1176.9 MB/s goodput, estimated)",)),
    Case("smb-multichannel-off", "multichannel on",
         fault={("smb", "read"): 150 * MB, "smbd_cpu_percent": 99.0, "smb_multichannel": False},
         fix={"smb_multichannel": True},
         says=("smbd used 99% of one core", "SMB read 150.0 MB/s of the 1170.0 MB/s the network allows")),
    Case("smb-multichannel-off", "smbd not busy",
         fault={("smb", "read"): 150 * MB, "smbd_cpu_percent": 99.0, "smb_multichannel": False},
         fix={"smbd_cpu_percent": 60.0},
         says=("smbd used 99% of one core",)),
    Case("smb-multichannel-off", "SMB close to the line",
         fault={("smb", "read"): 150 * MB, "smbd_cpu_percent": 99.0, "smb_multichannel": False},
         fix={("smb", "read"): 1100 * MB},
         says=("SMB read 150.0 MB/s",)),
    Case("smb-multichannel-off", "a CPU limit of a whole core: 19% is not all of it",
         fault={("smb", "read"): 150 * MB, "smbd_cpu_percent": 19.0, "smbd_cpu_limit_cores": 0.2,
                "smb_multichannel": False},
         fix={"smbd_cpu_limit_cores": 1.0},
         says=("smbd used 19% of one core, all its CPU limit of 0.2 of a core allows",)),
    Case("smb-multichannel-off", "on a TrueNAS: its own command",
         given={"nas_truenas": True},
         fault={("smb", "read"): 150 * MB, "smbd_cpu_percent": 99.0, "smb_multichannel": False},
         fix={"smb_multichannel": True},
         says=("smbd used 99% of one core",)),
    Case("smb-multichannel-lagg", "no LAGG: one member",
         given={"link_negotiated_bps": 10 * G},
         fault={"smb_multichannel": True, "lagg_protocol": "LACP", "lagg_members": 2}, fix={"lagg_members": 1},
         says=("LACP LAGG of 2 members (10 Gb/s each)",)),
    Case("smb-multichannel-lagg", "multichannel off on the LAGG",
         given={"link_negotiated_bps": 10 * G},
         fault={"smb_multichannel": True, "lagg_protocol": "LACP", "lagg_members": 2}, fix={"smb_multichannel": False},
         says=("(10 Gb/s each)",)),
    Case("smb-one-channel", "two channels",
         fault={"smb_channels": 1, "nas_smb_nics": 2}, fix={"smb_channels": 2},
         says=("used 1 channel (SMB read 1100.0 MB/s, SMB write 1000.0 MB/s)",)),
    Case("smb-one-channel", "the NAS has one NIC",
         fault={"smb_channels": 1, "nas_smb_nics": 2}, fix={"nas_smb_nics": 1},
         says=("SMB read 1100.0 MB/s",)),
    Case("pool-member-dragging", "the slow member waits as the others do",
         fault={"pool_member_wait_ms": {"sdb": 6.0, "sdc": 41.0}},
         fix={"pool_member_wait_ms": {"sdb": 6.0, "sdc": 6.5}},
         says=("sdc: 41.0 ms average wait, the others 6.0 ms",)),
    Case("pool-member-dragging", "waits of a few ms, below the floor",
         fault={"pool_member_wait_ms": {"sdb": 0.6, "sdc": 41.0}},
         fix={"pool_member_wait_ms": {"sdb": 0.6, "sdc": 4.0}},
         says=("sdc: 41.0 ms average wait, the others 0.6 ms",)),
    Case("pool-member-dragging", "the busy member as busy as the others",
         fault={"pool_member_busy_percent": {"sdb": 30.0, "sdc": 97.0}},
         fix={"pool_member_busy_percent": {"sdb": 30.0, "sdc": 35.0}},
         says=("sdc: busy 97% of the time, the others 30%",)),
    Case("pool-needs-threads", "one thread nearly as fast as the best",
         fault={"pool_one_thread_bps": {"read": 200 * MB, "write": 1500 * MB},
                "pool_best_thread_bps": {"read": 600 * MB, "write": 1500 * MB},
                "pool_best_threads": {"read": 4, "write": 1}},
         fix={"pool_one_thread_bps": {"read": 590 * MB, "write": 1500 * MB}},
         says=("read 200.0 MB/s with 1 thread, 600.0 MB/s with 4",)),
    Case("pool-needs-threads", "the best thread count is one",
         fault={"pool_one_thread_bps": {"read": 200 * MB, "write": 1500 * MB},
                "pool_best_thread_bps": {"read": 600 * MB, "write": 1500 * MB},
                "pool_best_threads": {"read": 4, "write": 1}},
         fix={"pool_best_threads": {"read": 1, "write": 1}},
         says=("600.0 MB/s with 4",)),
    Case("small-files-round-trips", "the round trip back to a cable's",
         fault={"round_trip_ms": 0.8, "small_file_ms": 3.2}, fix={"round_trip_ms": 0.05},
         says=("4 KiB files at 2,000 files/s", "each file took 3.20 ms", "round trips (create, write, close) of "
               "0.80 ms on this link are 75% of it")),
    Case("small-files-round-trips", "files slower than their round trips explain",
         fault={"round_trip_ms": 0.8, "small_file_ms": 3.2}, fix={"small_file_ms": 5.0},
         says=("0.80 ms",)),
    Case("small-files-smbd-cpu", "smbd calm",
         fault={"small_files_smbd_cpu_percent": 97.0}, fix={"small_files_smbd_cpu_percent": 40.0},
         says=("smbd used 97% of one core", "4 KiB files at 2,000 files/s")),
    Case("small-files-signing", "signing off",
         fault={"smb_signing": True}, fix={"smb_signing": False},
         says=("4 KiB files at 2,000 files/s", "(0.50 ms per file)")),
)
# The crypto notes, the desktop's CPU and multichannel-off speak only when SMB itself is the bottleneck, so their
# fault brings smb-far-below along. Signing on, with small files measured, also draws the small-file note on it
# (the same fact, another copy); multichannel over a LAGG draws the LAGG's single-flow note.
IMPLIED = {"smb-encryption": {"smb-far-below"}, "smb-signing": {"smb-far-below", "small-files-signing"},
           "client-cpu": {"smb-far-below"}, "smb-multichannel-off": {"smb-far-below"},
           "smb-multichannel-lagg": {"lagg-single-flow"}}
TABLE_IDS = {case.rule for case in CASES}


FIRST = {}  # rule id -> its first row: the fault it brings when other rules are tried amid every fault
for _case in CASES:
    FIRST.setdefault(_case.rule, _case)
each_case = pytest.mark.parametrize("case", CASES, ids=[f"{c.rule}: {c.why}" for c in CASES])


def build(scenario: dict) -> tuple[list[Ceiling], Facts]:
    """The scenario's ceilings (a None one left out: not measured) and its Facts."""
    ceilings, facts = [], {}
    for key, value in scenario.items():
        if isinstance(key, str):
            facts[key] = value
        elif value is not None:
            component, direction = key
            estimated = isinstance(value, Estimated)
            ceilings.append(Ceiling(
                component=component, direction=direction, label=f"{component} {direction}",
                bytes_per_s=value.bytes_per_s if estimated else value,
                provenance="estimated" if estimated else "measured",
            ))
    return ceilings, Facts(**facts)


def fired(scenario: dict) -> dict:
    """Rule id -> Advice for the scenario, straight from advise() with the ceilings as given."""
    ceilings, facts = build(scenario)
    return {a.rule: a for a in advise(SSD, ceilings, facts, [])}


def merged(*changes: dict) -> dict:
    """HEALTHY with the changes applied in turn; two changes may not disagree on a fact (that would hide a case)."""
    out = dict(HEALTHY)
    done: dict = {}
    for change in changes:
        for key, value in change.items():
            assert done.get(key, value) == value, f"the table's faults disagree on {key}: {done[key]} vs {value}"
            done[key] = out[key] = value
    return out


def broken(case: Case) -> dict:
    """HEALTHY with the row's given and fault: its rule fires."""
    return merged(case.given, case.fault)


# Rules whose faults set the same fact to different values: loses-at-its-bound needs SMB a little below the
# target, the SMB rules need it far below the chain; neither can be broken while the other is.
SAME_FACT = {frozenset({"loses-at-its-bound", rule}) for rule in ("smb-far-below", "smb-encryption", "smb-signing")}


def fault_facts(rule: str) -> set:
    """Every fact the rule's rows make bad."""
    return {key for case in CASES if case.rule == rule for key in case.fault}


def clash(a: dict, b: dict) -> bool:
    """Two changes that set one fact to different values (multichannel off for one fault, on for another)."""
    return any(a[key] != b[key] for key in a.keys() & b.keys())


def fault_of(rule: str) -> dict:
    return FIRST[rule].given | FIRST[rule].fault


def related(a: str, b: str) -> bool:
    """Rules that share a fact: one needs the other (a crypto note needs smb-far-below), both need the same
    (both signing notes need signing on), or their faults disagree on one fact."""
    if frozenset({a, b}) in SAME_FACT:
        return True
    return (clash(fault_of(a), fault_of(b)) or bool(fault_facts(a) & fault_facts(b))
            or bool(({a} | IMPLIED.get(a, set())) & ({b} | IMPLIED.get(b, set()))))


def unrelated(case: Case) -> set[str]:
    return {rule for rule in TABLE_IDS if not related(rule, case.rule)}


def others_broken(case: Case) -> tuple[dict, set[str]]:
    """The first fault of every unrelated rule that agrees with those taken before it (in name order); then this
    row's own given and fault -> (the scenario, the rules whose faults it holds)."""
    taken: list[str] = []
    for rule in sorted(unrelated(case)):
        if not any(clash(fault_of(rule), fault_of(t)) for t in taken):
            taken.append(rule)
    others = (FIRST[rule] for rule in taken)
    return merged(*(change for c in others for change in (c.given, c.fault)), case.given, case.fault), set(taken)


def test_healthy_draws_no_advice():
    assert fired(HEALTHY) == {}


@each_case
def test_the_table_changes_one_fact_of_the_fault(case):
    assert len(case.fix) == 1 and set(case.fix) <= set(case.fault) | set(case.given), case.fix
    assert case.says and all(UNIT.search(s) for s in case.says), f"each of says needs a number with its unit: {case.says}"


@each_case
def test_the_fault_fires_its_rule_and_no_other(case):
    assert set(fired(broken(case))) == {case.rule} | IMPLIED.get(case.rule, set())


@each_case
def test_the_advice_names_its_numbers_with_units(case):
    text = fired(broken(case))[case.rule].text
    for number in case.says:
        assert number in text, (number, text)


@each_case
def test_the_one_fact_set_right_silences_the_rule(case):
    scenario = broken(case) | case.fix
    assert case.rule not in fired(scenario)


@each_case
def test_others_faults_do_not_fire_it_once_its_own_fact_is_right(case):
    everything, others = others_broken(case)
    assert case.rule in fired(everything)  # its fault still fires it among all the others
    got = fired(everything | case.fix)
    assert case.rule not in got
    assert others <= set(got) and len(others) >= len(unrelated(case)) - 1  # not vacuous: the others' faults are there


@each_case
def test_an_unknown_fact_does_not_fire_it(case):
    for key in case.fault:
        assert case.rule not in fired(broken(case) | {key: unknown(key)}), f"{key} unknown"


@each_case
def test_judge_gives_the_advice_the_table_is_checked_against(case):
    ceilings, facts = build(broken(case))
    assert judge(SSD, ceilings, facts).advice == advise(SSD, ceilings, facts, [])


def ids_given_by(rule) -> set[str]:
    """The ids a registered rule returns on the table's faults (a rule none of them triggers returns none)."""
    ids = set()
    for case in CASES:
        ceilings, facts = build(broken(case))
        by_dir = {d: [c for c in ceilings if c.direction == d] for d in DIRECTIONS}
        if (advice := rule(SSD, by_dir, facts)) is not None:
            ids.add(advice.rule)
    return ids


@pytest.mark.parametrize("rule", RULES, ids=[f"RULES[{i}]" for i in range(len(RULES))])
def test_every_registered_rule_has_a_wrong_fact_row(rule):
    ids, name = ids_given_by(rule), getattr(rule, "__qualname__", repr(rule))
    assert len(ids) == 1, f"{name} gives ids {ids or 'none'} on the table's faults: add its row (fault, fix) to CASES"
    assert ids <= TABLE_IDS, f"rule {ids} has no row in CASES: add its fault and the one fact that silences it"


def test_the_table_has_no_rule_the_registry_lacks():
    registered = set().union(*(ids_given_by(rule) for rule in RULES))
    assert len(registered) == len(RULES)  # one stable id per rule
    assert TABLE_IDS == registered


def test_the_multichannel_advice_gives_the_command_of_the_nas_it_runs_on():
    off = next(c for c in CASES if c.rule == "smb-multichannel-off")
    truenas = fired(broken(off) | {"nas_truenas": True})["smb-multichannel-off"].text
    assert "midclt call smb.update '{\"multichannel\": true}'" in truenas and "smb.conf" not in truenas
    samba = fired(broken(off))["smb-multichannel-off"].text
    assert "server multichannel support = yes" in samba and "midclt" not in samba
    one = next(c for c in CASES if c.rule == "smb-one-channel")
    assert "server multichannel support = yes" in fired(broken(one))["smb-one-channel"].text  # off: turn it on
    on = fired(broken(one) | {"smb_multichannel": True})["smb-one-channel"].text
    assert "smbclient always uses one channel" in on and "Get-SmbMultichannelConnection" in on
