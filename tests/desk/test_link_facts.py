"""What a desktop says of its link towards the NAS, with no tool to install (desk/link_facts.py): Linux from
/proc/net/route and /sys/class/net (recorded on this machine and the lab's desk), macOS from `ifconfig`
(tests/fixtures/macos: public and written output, no Mac here; see its README), anything unreadable left
out. Before, a desktop without iproute2 (every Mac) stopped before joining: "'ip' is not installed"."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tengig.backends.linux.proc_route import parse_proc_route_interface
from tengig.desk import link_facts
from tengig.desk.link_facts import link_towards
from tengig.errors import CommandNotFound
from tengig.runner import Completed

FIX = Path(__file__).parents[1] / "fixtures"


class Answers:
    """A runner that answers `ifconfig` from a file, and fails the test on any other program."""

    def __init__(self, stdout: str | None, returncode: int = 0):
        self.stdout, self.returncode, self.calls = stdout, returncode, []

    def run(self, argv, *, timeout, check=True, **_):
        self.calls.append(list(argv))
        assert list(argv) == ["ifconfig"], argv
        if self.stdout is None:
            raise CommandNotFound(list(argv))
        return Completed(tuple(argv), self.returncode, self.stdout, "", 0.0)


class NoPrograms:
    def run(self, argv, **_):
        raise AssertionError(f"a program ran: {argv}")


@pytest.mark.parametrize("name, address, interface", [
    ("lab-desk.txt", "10.250.12.1", "eth-nas"), ("lab-desk.txt", "10.250.23.9", "eth-lab"),
    ("lab-desk.txt", "10.250.99.1", None),  # no route: unknown, not guessed
    ("host-default-route.txt", "192.0.2.77", "eth0"), ("host-default-route.txt", "8.8.8.8", "eth0"),
])
def test_the_route_to_the_nas_is_read_from_proc_net_route(name, address, interface):
    assert parse_proc_route_interface((FIX / "proc-net-route" / name).read_text(), address) == interface


def test_the_longest_prefix_wins_then_the_lowest_metric():
    table = ("Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n"
             "wan\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
             "slow\t000CFA0A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"
             "fast\t000CFA0A\t00000000\t0001\t0\t0\t10\t00FFFFFF\t0\t0\t0\n"
             "down\t010CFA0A\t00000000\t0000\t0\t0\t0\tFFFFFFFF\t0\t0\t0\n")  # not RTF_UP
    assert parse_proc_route_interface(table, "10.250.12.1") == "fast"
    assert parse_proc_route_interface(table, "10.250.13.1") == "wan"


def test_linux_facts_come_from_the_kernel_without_any_program(tmp_path, monkeypatch):
    sys_net = tmp_path / "net"
    for dev, mtu, speed in (("eth-nas", "9000", "1000"), ("eth-lab", "1500", "-1")):
        (sys_net / dev).mkdir(parents=True)
        (sys_net / dev / "mtu").write_text(mtu + "\n")
        (sys_net / dev / "speed").write_text(speed + "\n")
    monkeypatch.setattr(link_facts, "PROC_ROUTE", FIX / "proc-net-route" / "lab-desk.txt")
    monkeypatch.setattr(link_facts, "SYS_NET", sys_net)
    assert link_towards(NoPrograms(), "10.250.12.1", system="Linux") == \
        {"interface": "eth-nas", "mtu": 9000, "speed_bps": 1_000_000_000}
    assert link_towards(NoPrograms(), "10.250.23.1", system="Linux") == {"interface": "eth-lab", "mtu": 1500}


def test_this_machines_loopback_is_read_with_no_program_at_all():
    facts = link_towards(NoPrograms(), "127.0.0.1", system="Linux")
    assert facts["interface"] == "lo" and facts["mtu"] == int(Path("/sys/class/net/lo/mtu").read_text())


def test_the_local_address_is_the_one_the_kernel_picks_towards_the_nas():
    assert link_facts.local_address_towards("127.0.0.1") == "127.0.0.1"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.77", 9))
        assert link_facts.local_address_towards("192.0.2.77") == probe.getsockname()[0]


@pytest.mark.parametrize("name, local, facts", [
    # Wi-Fi: its media line names no speed
    ("ifconfig-wifi-macbook-air.txt", "172.30.7.47", {"interface": "en0", "mtu": 1500}),
    ("ifconfig-ethernet-1g-and-10g.txt", "10.250.12.2", {"interface": "en0", "mtu": 9000, "speed_bps": 10**10}),
    ("ifconfig-ethernet-1g-and-10g.txt", "192.168.1.23", {"interface": "en8", "mtu": 1500, "speed_bps": 10**9}),
    ("ifconfig-ethernet-1g-and-10g.txt", "10.9.9.9", {}),  # on no interface: unknown
])
def test_a_macs_facts_come_from_its_ifconfig(monkeypatch, name, local, facts):
    monkeypatch.setattr(link_facts, "local_address_towards", lambda address: local)
    runner = Answers((FIX / "macos" / name).read_text())
    assert link_towards(runner, "10.250.12.1", system="Darwin") == facts
    assert runner.calls == [["ifconfig"]]


@pytest.mark.parametrize("runner", [Answers(None), Answers("", returncode=1)], ids=["absent", "failed"])
def test_a_mac_without_a_readable_ifconfig_joins_with_its_facts_unknown(monkeypatch, runner):
    monkeypatch.setattr(link_facts, "local_address_towards", lambda address: "10.250.12.2")
    assert link_towards(runner, "10.250.12.1", system="Darwin") == {}


def test_an_interface_name_the_nas_would_refuse_is_left_out(monkeypatch):
    monkeypatch.setattr(link_facts, "local_address_towards", lambda address: "10.250.12.2")
    text = (FIX / "macos" / "ifconfig-ethernet-1g-and-10g.txt").read_text().replace("en0:", "en0;rm:")
    facts = link_towards(Answers(text), "10.250.12.1", system="Darwin")
    assert "interface" not in facts and facts["mtu"] == 9000
