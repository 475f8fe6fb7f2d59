"""smbstatus, interface counters and /proc stat parsing on recorded lab output."""
import json
from pathlib import Path

import pytest

from tengig.bench.phases.smb_probes import (
    main_smbd, parse_cpu_ticks, parse_own_netns, parse_smbd_processes, parse_smbstatus_session,
)
from tengig.bench.parse.smbclient_parse import parse_transfer
from tengig.errors import ToolOutputError

FIX = Path(__file__).parent.parent / "fixtures"


def test_session_of_the_client_address():
    text = (FIX / "smbstatus" / "session-desk-smb3.json").read_text()
    s = parse_smbstatus_session(text, "10.250.12.2")
    # "partial": the signed session setup of SMB 3.1.1, the data unsigned: signing is not on for the copy
    assert s.dialect == "SMB3_11" and s.signing_degree == "partial" and not s.signing and not s.encryption
    assert s.signing_cipher == "AES-128-GMAC"
    assert parse_smbstatus_session(text, "10.250.13.3") is None  # another client: not this session


def test_no_sessions_and_broken_output():
    assert parse_smbstatus_session((FIX / "smbstatus" / "no-sessions.json").read_text(), "10.250.12.2") is None
    with pytest.raises(ToolOutputError):
        parse_smbstatus_session("smbstatus: cannot open", "10.250.12.2")


def test_smbd_cpu_ticks_include_ended_children():
    # comm with a space and parentheses; fields 14-17 are utime stime cutime cstime
    stat = ("1340 (smbd) S 1 1340 1340 0 -1 4194560 100 0 0 0 11 7 250 40 20 0 1 0 5 0 0\n"
            "1343 (smbd-notifyd) S 1340 1340 1340 0 -1 4194560 1 0 0 0 2 1 0 0 20 0 1 0 5 0 0\n"
            "77 (a (weird) name) S 1 1 1 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 5 0 0\n")
    assert parse_cpu_ticks(stat) == (11 + 7 + 250 + 40) + (2 + 1) + (5 + 5)
    found = parse_smbd_processes(" 1340     1 smbd\n 1343  1340 smbd-notifyd\n  999     1 bash\n")  # FreeBSD's ps
    assert [(p.pid, p.ppid, p.comm) for p in found] == [(1340, 1, "smbd"), (1343, 1340, "smbd-notifyd")]


def test_only_the_smbd_in_the_nas_own_network_is_the_nas_smbd():
    """A Samba in a container (or a second lab's NAS on the same machine) serves another network."""
    text = (" 977 1 4026531833 smbd\n 980 977 4026531833 smbd-notifyd\n1340 1 4026532301 smbd\n"
            "1343 1340 4026532301 smbd-notifyd\n 999 1 4026532301 bash\n1500 1340 - smbd\n")
    assert [p.pid for p in parse_smbd_processes(text, "4026532301")] == [1340, 1343, 1500]
    assert main_smbd(parse_smbd_processes(text, "4026532301")).pid == 1340
    assert main_smbd(parse_smbd_processes(text, "4026531833")).pid == 977
    assert parse_own_netns("net:[4026532301]\n") == "4026532301"
    assert parse_own_netns("readlink: /proc/self/ns/net: No such file or directory") is None


def test_the_main_smbd_is_the_one_the_others_came_from_not_the_lowest_pid():
    """PIDs wrap: a helper forked after the wrap has a lower PID than the smbd it came from."""
    text = "  212 32701 4026532301 smbd-notifyd\n  215 32701 4026532301 smbd-cleanupd\n32701 1 4026532301 smbd\n"
    assert main_smbd(parse_smbd_processes(text, "4026532301")).pid == 32701
    assert main_smbd(parse_smbd_processes("  212 32701 4026532301 smbd-notifyd\n", "4026532301")) is None


def test_share_full_and_missing_share_are_errors():
    full = (FIX / "smbclient" / "put-share-full.txt").read_text()
    with pytest.raises(ToolOutputError, match="NT_STATUS_DISK_FULL"):
        parse_transfer(full, direction="write", expected_bytes=64 << 20)
    with pytest.raises(ToolOutputError, match="NT_STATUS_BAD_NETWORK_NAME"):
        parse_transfer((FIX / "smbclient" / "missing-share.txt").read_text(), direction="read", expected_bytes=1)


def test_a_ports_counters_read_by_the_one_ip_link_parser():
    from tengig.bench.phases.nas_port import NasPort, counters
    from tengig.runner import Completed

    class Answers:
        def __init__(self, stdout):
            self.stdout = stdout

        def run(self, host, argv, *, timeout, tool=None, record=True, check=True):
            return Completed(tuple(argv), 0, self.stdout, "", 0.01)

    port = NasPort(ifname="eth-nas", address="10.0.0.1", mtu=1500, speed_bps=None, shaper_bps=None)
    doc = [{"ifname": "eth-nas", "stats64": {"rx": {"bytes": 268716911, "packets": 1}, "tx": {"bytes": 42}}}]
    c = counters(Answers(json.dumps(doc)), "nas", port)
    assert (c.rx_bytes, c.tx_bytes) == (268716911, 42)
    with pytest.raises(ToolOutputError):
        counters(Answers("[]"), "nas", port)
    with pytest.raises(ToolOutputError, match="no counters of eth-nas"):
        counters(Answers(json.dumps([{**doc[0], "ifname": "eth-other"}])), "nas", port)


def test_carrier_changes_from_recorded_ip_output_and_what_is_not_there():
    from pathlib import Path

    from tengig.backends.linux.link_stats import parse_carrier_changes

    recorded = (Path(__file__).resolve().parents[1] / "fixtures" / "ip" / "link-stats-detailed.json").read_text()
    assert parse_carrier_changes(recorded) == 0  # lo never lost its carrier
    plain = (Path(__file__).resolve().parents[1] / "fixtures" / "ip" / "link-stats.json").read_text()
    assert parse_carrier_changes(plain) is None  # `ip -s` (one -s) does not report it: unknown, not 0
    assert parse_carrier_changes('[{"stats64": {"tx": {"carrier_changes": 5}}}]') == 5
    assert parse_carrier_changes("not json") is None


def test_a_client_behind_a_proxy_is_placed_on_its_link_by_the_nas_route_towards_it():
    """Under TrueNAS, a desktop reaches nginx, which connects to middlewared over loopback: the NAS's end
    of the connection says 127.0.0.1, so the link is the source the NAS's kernel picks towards the
    desktop (recorded `ip -j route get`)."""
    from tengig.bench.context import BenchContext
    from tengig.bench.phases.nas_port import address_towards, proxied
    from tengig.errors import ToolOutputError
    from tengig.systems.local_bench import LocalHosts

    from ..recorded import RecordedRunner

    assert proxied("127.0.0.1", "10.99.0.2") and proxied(None, "10.99.0.2") and proxied("", "10.99.0.2")
    assert not proxied("10.99.0.1", "10.99.0.2")  # the connection came over the link itself
    assert not proxied("127.0.0.1", "127.0.0.1")  # a client on the NAS itself
    ctx = BenchContext(LocalHosts("nas", RecordedRunner("ip")))
    assert address_towards(ctx, "nas", "10.99.0.2") == "10.99.0.1"
    with pytest.raises(ToolOutputError, match="no route of its own towards the client's address 192.0.2.1.*"
                                              "Network is unreachable"):
        address_towards(ctx, "nas", "192.0.2.1")
    with pytest.raises(ToolOutputError, match="10.99.0.1"):  # the NAS's own address: the kernel says lo
        address_towards(ctx, "nas", "10.99.0.1")


def test_a_bond_port_is_named_a_lagg_in_truenas_words():
    """`ip -j -d addr show` of a bond (iproute2 prints its mode under linkinfo.info_data; this machine's kernel
    has no bonding driver to record one): 802.3ad is TrueNAS's LACP; a plain port is no LAGG."""
    from tengig.bench.phases.nas_port import bond_protocol
    text = ('[{"ifname": "bond0", "linkinfo": {"info_kind": "bond", "info_data": {"mode": "802.3ad"}}},'
            ' {"ifname": "eth1", "linkinfo": {"info_kind": "veth"}}]')
    assert bond_protocol(text, "bond0") == "LACP"
    assert bond_protocol(text, "eth1") is None and bond_protocol("garbage", "bond0") is None
