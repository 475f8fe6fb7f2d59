"""The Linux parsers on recorded real output (tests/fixtures/{ip,ethtool,kernel-log}, recorded by
scripts/record_parser_fixtures.py on Debian 12 in two private namespaces; recorded.json says when and
with what): iproute2 (`ip -j -d addr`, `ip -j route get`, `ip -s -j link`, `ip -j -d link`), ethtool and
`ethtool -i`, the kernel log and carrier_down_count, and linux_nics reading them all."""
from __future__ import annotations

import pytest

from tengig.backends.linux.ip import LinuxNetwork, parse_ip_addr_json
from tengig.backends.linux.nics import linux_nics, parse_ethtool, parse_ethtool_driver, parse_link_events
from tengig.backends.linux.ip import parse_route_get
from tengig.errors import ToolOutputError
from tengig.backends.linux.link_stats import parse_ip_link_stats
from tengig.results.environment import parse_ip_links

from ..recorded import RecordedRunner, recorded

IP = recorded("ip")
ETHTOOL = recorded("ethtool")
KLOG = recorded("kernel-log")


# --- ip -j -d addr show ------------------------------------------------------------------------------

def test_addr_show_every_interface_in_kernel_order():
    ifaces = {i.name: i for i in parse_ip_addr_json(IP["addr-show"].stdout)}
    assert list(ifaces) == ["lo", "rec-eth0", "rec-jumbo0", "rec-down0", "rec-lonely0", "rec-port0", "rec-br0", "rec-br1"]

    lo = ifaces["lo"]
    assert lo.loopback and lo.admin_up and lo.mac is None and lo.kind is None  # link_type loopback: no MAC
    assert lo.ipv4 == ("127.0.0.1/8",) and lo.mtu == 65536

    eth = ifaces["rec-eth0"]
    assert (eth.mtu, eth.operstate, eth.admin_up, eth.kind, eth.master) == (1500, "UP", True, "veth", None)
    assert eth.mac == "02:74:67:00:00:01" and not eth.loopback
    assert eth.ipv4 == ("10.99.0.1/24",)  # the fe80:: address is IPv6 and left out
    assert [str(n) for n in eth.networks()] == ["10.99.0.0/24"]

    assert ifaces["rec-jumbo0"].mtu == 9000 and ifaces["rec-jumbo0"].ipv4 == ("10.99.9.1/24",)


def test_addr_show_down_interfaces():
    ifaces = {i.name: i for i in parse_ip_addr_json(IP["addr-show"].stdout)}
    down = ifaces["rec-down0"]  # never set up: no UP flag, its address still listed
    assert (down.admin_up, down.operstate, down.ipv4) == (False, "DOWN", ("10.99.5.1/24",))
    lonely = ifaces["rec-lonely0"]  # set up, far end down: UP but NO-CARRIER
    assert (lonely.admin_up, lonely.operstate, lonely.ipv4) == (True, "DOWN", ())


def test_addr_show_bridge_and_its_port():
    ifaces = {i.name: i for i in parse_ip_addr_json(IP["addr-show"].stdout)}
    assert ifaces["rec-port0"].master == "rec-br0" and ifaces["rec-port0"].kind == "veth"
    assert ifaces["rec-port0"].ipv4 == ()
    br = ifaces["rec-br0"]
    assert (br.kind, br.master, br.ipv4, br.mac) == ("bridge", None, ("10.99.7.1/24",), "02:74:67:00:00:20")
    assert ifaces["rec-br1"].kind == "bridge" and ifaces["rec-br1"].admin_up and ifaces["rec-br1"].operstate == "DOWN"


def test_addr_show_of_a_missing_device_is_an_error():
    done = IP["addr-show-missing-device"]
    assert done.returncode == 1 and done.stdout == "" and 'Device "rec-nosuch0" does not exist.' in done.stderr
    with pytest.raises(ToolOutputError, match="printed no JSON"):
        parse_ip_addr_json(done.stdout)
    with pytest.raises(ToolOutputError, match="printed no JSON"):
        parse_ip_addr_json(done.stderr)


def test_interfaces_through_the_runner():
    net = LinuxNetwork(RecordedRunner("ip"), netns="tengig-rec-host")
    assert net.interface("rec-br0").kind == "bridge"
    assert net.interface("rec-nosuch0") is None


# --- ip -j route get ---------------------------------------------------------------------------------

def test_route_get():
    assert parse_route_get(IP["route-get"].stdout) == {"dev": "rec-eth0", "prefsrc": "10.99.0.1"}
    assert parse_route_get(IP["route-get-own-address"].stdout)["dev"] == "lo"  # own address: the kernel says lo
    assert IP["route-get-unreachable"].returncode == 2
    assert "Network is unreachable" in IP["route-get-unreachable"].stderr
    assert parse_route_get(IP["route-get-unreachable"].stdout) is None


def test_route_source_interface_through_the_runner():
    net = LinuxNetwork(RecordedRunner("ip"))
    assert net.route_source_interface("10.99.0.2") == "rec-eth0"
    assert net.route_source_interface("192.0.2.1") is None  # exit 2, nothing on stdout


# --- ip -s -j link / ip -j -d link -------------------------------------------------------------------

def test_link_stats_byte_counters():
    stats = parse_ip_link_stats(IP["link-stats"].stdout)
    assert set(stats) == {"lo", "rec-eth0", "rec-jumbo0", "rec-down0", "rec-lonely0", "rec-port0", "rec-br0", "rec-br1"}
    rx, tx = stats["rec-jumbo0"]
    assert rx > 2 * 9000 and tx > 2 * 9000  # two 9000-byte DF pings each way went over it
    assert stats["rec-down0"] == (0, 0)
    with pytest.raises(ToolOutputError, match="no interface with byte counters"):
        parse_ip_link_stats(IP["link-show"].stdout)  # the same command without -s


def test_link_show_kinds():
    links = parse_ip_links(IP["link-show"].stdout)
    assert ("rec-jumbo0", 9000, "veth") in links and ("rec-br0", 1500, "bridge") in links
    assert "lo" not in [name for name, _, _ in links]


# --- ethtool / ethtool -i ----------------------------------------------------------------------------

def test_ethtool_veth_up():
    assert parse_ethtool(ETHTOOL["rec-eth0"].stdout) == {"speed_bps": 10_000_000_000, "duplex": "full", "link": "up"}
    assert parse_ethtool(ETHTOOL["rec-jumbo0"].stdout)["speed_bps"] == 10 * 10**9


@pytest.mark.parametrize("dev", ["rec-down0", "rec-lonely0"])
def test_ethtool_veth_without_carrier_still_prints_a_speed(dev):
    # veth reports 10000Mb/s even with no carrier; linux_nics drops it for a down link
    assert parse_ethtool(ETHTOOL[dev].stdout) == {"speed_bps": 10 * 10**9, "duplex": "full", "link": "down"}


def test_ethtool_bridge():
    # a bridge with a port up: its port's speed, "Duplex: Unknown! (255)"
    assert parse_ethtool(ETHTOOL["rec-br0"].stdout) == {"speed_bps": 10 * 10**9, "duplex": None, "link": "up"}
    # no ports: "Speed: Unknown!" is no speed, not 0
    assert parse_ethtool(ETHTOOL["rec-br1"].stdout) == {"speed_bps": None, "duplex": None, "link": "down"}


def test_ethtool_loopback_says_only_link():
    assert parse_ethtool(ETHTOOL["lo"].stdout) == {"speed_bps": None, "duplex": None, "link": "up"}


def test_ethtool_missing_device():
    done = ETHTOOL["rec-nosuch0"]
    assert done.returncode == 75 and "no device matches name" in done.stderr
    assert done.stdout == "No data available\n"  # on stdout, with a non-zero exit: linux_nics never parses it
    assert parse_ethtool(done.stdout) == {"speed_bps": None, "duplex": None, "link": "unknown"}


def test_ethtool_driver():
    assert parse_ethtool_driver(ETHTOOL["rec-eth0.driver"].stdout) == {"driver": "veth", "pci_slot": None}
    assert parse_ethtool_driver(ETHTOOL["rec-br0.driver"].stdout) == {"driver": "bridge", "pci_slot": None}  # N/A


def test_ethtool_driver_empty_value_does_not_take_the_next_line():
    """ethtool prints `expansion-rom-version: ` empty right above bus-info (recorded veth output); the
    key-value pattern used to let an empty value run on into the next line, so a PCI NIC's bus-info was
    read as the expansion ROM's version and its slot lost (whenever firmware-version is not empty, as on
    igc, e1000e, mlx5). The recorded veth text with firmware-version and bus-info filled in as a PCI NIC's:"""
    text = ETHTOOL["rec-eth0.driver"].stdout
    assert "firmware-version: \nexpansion-rom-version: \nbus-info: \n" in text
    pci = text.replace("firmware-version: \n", "firmware-version: 1045:740\n").replace("bus-info: \n", "bus-info: 0000:03:00.1\n")
    assert parse_ethtool_driver(pci) == {"driver": "veth", "pci_slot": "0000:03:00.1"}


@pytest.mark.parametrize("name, error", [("lo.driver", "Operation not supported"), ("rec-nosuch0.driver", "No such device")])
def test_ethtool_driver_failures(name, error):
    done = ETHTOOL[name]
    assert done.returncode == 71 and f"Cannot get driver information: {error}" in done.stderr and done.stdout == ""
    assert parse_ethtool_driver(done.stdout) == {"driver": None, "pci_slot": None}


# --- kernel log --------------------------------------------------------------------------------------

def test_kernel_log_has_no_link_lines_for_veth_or_bridge_ports():
    """The recording took veths and a bridge port down and up. This kernel (6.x) logs nothing for a veth's
    carrier (IPv6's 'link becomes ready' is gone) and only STP port states for a bridge port: none of it is
    a link up/down line, so nothing is counted (carrier_down_count still counts them)."""
    log = KLOG["link-changes"].stdout
    assert "rec-br0: port 1(rec-port0) entered disabled state" in log
    assert "rec-br0: port 1(rec-port0) entered forwarding state" in log
    for dev in ("rec-eth0", "rec-port0", "rec-br0"):
        assert parse_link_events(log, dev) == []


def test_kernel_log_iso_lines_give_their_time():
    """The recorded lines with a recognised wording appended (as a NIC driver prints it): the time is
    dmesg's ISO stamp, the detail the rest of the line."""
    log = KLOG["link-changes"].stdout
    stamp = log.splitlines()[-1].split()[0]
    events = parse_link_events(log + f"{stamp} ixgbe 0000:03:00.1 rec-port0: NIC Link is Down\n", "rec-port0")
    assert [(e.at, e.state, e.detail) for e in events] == [(stamp, "down", "ixgbe 0000:03:00.1 rec-port0: NIC Link is Down")]


def test_kernel_log_unreadable_without_privilege():
    done = KLOG["unprivileged"]
    assert done.returncode == 1 and "read kernel buffer failed: Operation not permitted" in done.stderr
    assert parse_link_events(done.stdout, "rec-eth0") == []


# --- all of it: linux_nics -----------------------------------------------------------------------------

def test_linux_nics_on_the_recording():
    runner = RecordedRunner("ip", "ethtool", "kernel-log")
    nics = {n.name: n for n in linux_nics(runner, netns="tengig-rec-host", session_interface="rec-eth0")}
    assert list(nics) == ["rec-eth0", "rec-jumbo0", "rec-down0", "rec-lonely0", "rec-port0", "rec-br0", "rec-br1"]

    eth = nics["rec-eth0"]
    assert (eth.kind, eth.link, eth.speed_bps, eth.duplex, eth.mtu) == ("virtual", "up", 10**10, "full", 1500)
    assert (eth.driver, eth.pci_slot, eth.card, eth.mac) == ("veth", None, None, "02:74:67:00:00:01")
    assert eth.addresses == ["10.99.0.1/24"] and eth.carries_session and eth.in_use_by is None
    assert eth.link_flaps == int(KLOG["rec-eth0.carrier_down_count"].stdout) > 0 and eth.flap_events == []

    for dev in ("rec-down0", "rec-lonely0"):  # ethtool's 10000Mb/s of a link without carrier is not kept
        assert (nics[dev].link, nics[dev].speed_bps, nics[dev].duplex) == ("down", None, None)
    assert nics["rec-jumbo0"].mtu == 9000 and not nics["rec-jumbo0"].carries_session
    assert nics["rec-port0"].in_use_by == "rec-br0"
    assert (nics["rec-br0"].kind, nics["rec-br0"].driver, nics["rec-br0"].duplex) == ("bridge", "bridge", None)
    assert (nics["rec-br1"].link, nics["rec-br1"].speed_bps) == ("down", None)


def test_linux_nics_loopback_when_asked():
    nics = linux_nics(RecordedRunner("ip", "ethtool", "kernel-log"), netns="tengig-rec-host", include_loopback=True)
    lo = nics[0]
    # `ethtool -i lo` fails (exit 71): no driver, and no kind from linkinfo either
    assert (lo.name, lo.kind, lo.link, lo.speed_bps, lo.driver, lo.link_flaps) == ("lo", "loopback", "up", None, None, 0)

