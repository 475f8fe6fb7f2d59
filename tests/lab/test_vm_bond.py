"""A real bond, made by tengig's own LAGG apply and measured by its verify (docs/vm-lab.md): this
machine's kernel has no bonding driver, so two small VMs boot Debian 12's kernel under qemu's software
emulation, joined by two cables shaped to 100 Mb/s each (tbf, in the VM lab's own network namespace).
`tengig lagg apply` runs in the nas VM on its own ports; desk's end plays the plan's topology; verify's
per-direction figures are read against the plan. One boot for the module.

Longer runs, and round-robin's one-way balance (seed 002), are in `make bench` (scripts/bench_vm_bond.py)."""
import shutil
from pathlib import Path

import pytest

from tengig.lab.vm import bonds
from tengig.lab.vm.machines import NETNS, QEMU, VmLab, build_image
from tengig.runner import Runner

pytestmark = [pytest.mark.lab, pytest.mark.vm]  # its own namespace (tgvm), yet in the lab stream: its emulated CPUs would starve the lab's measurements

ONE_MEMBER_BPS = 94.15e6  # the planner's goodput of one 100 Mb/s member at MTU 1500
MB = 10**6


@pytest.fixture(scope="module")
def vms():
    if shutil.which(QEMU) is None:
        pytest.fail(f"{QEMU} is not installed: run `make setup`")
    lab = VmLab(build_image(Runner()))
    try:
        yield lab.up()
    finally:
        lab.down()
    assert not Path("/run/netns", NETNS).exists()  # nothing left: the namespace, its taps and the VMs


@pytest.fixture
def no_bonds(vms):
    yield vms
    bonds.remove_bonds(vms)
    for port in range(2):
        vms.set_cable(port, True)


def test_lacp_bond_in_the_vm_measured_against_the_plan(no_bonds):
    vms = no_bonds
    bonds.far_end(vms, "LACP")
    # 16 flows (the plan's many-flow count is its client count): layer3+4 hashes each flow's random source
    # port, so 4 flows all land on one member 1 time in 8; 16 flows 1 in 32,768.
    plan = bonds.apply_on_nas(vms, topology="switchless-peer", clients=16)
    assert (plan.name, plan.protocol, plan.xmit_hash_policy, plan.flows) == ("bond1", "LACP", "LAYER3+4", 16)
    assert [m.name for m in plan.members] == ["eth0", "eth1"] and plan.address == "10.77.0.1/24"
    assert plan.members[0].goodput_bps == pytest.approx(ONE_MEMBER_BPS, rel=0.01)

    text = bonds.wait_lacp(vms)  # the kernel's bond: 802.3ad, both members in one aggregator with desk
    assert "Bonding Mode: IEEE 802.3ad Dynamic link aggregation" in text
    assert "Transmit Hash Policy: layer3+4 (1)" in text
    assert "Partner Mac Address: 52:54:00:ab:02:00" in text
    link = vms.hosts.run("nas", ["ip", "-d", "link", "show", "bond1"], timeout=30).stdout
    assert "bond mode 802.3ad" in link and "10.77.0.1/24" in vms.hosts.run(
        "nas", ["ip", "-br", "addr", "show", "bond1"], timeout=30).stdout

    request, verdict, ctx = bonds.verify(vms, plan, seconds=2, omit=1)
    tests = [(c.direction, c.flows) for c in verdict.comparisons]
    assert tests == [("read", 1), ("write", 1), ("read", 16), ("write", 16)]
    by_test = {(c.direction, c.flows): c for c in verdict.comparisons}
    shares = {(b.direction, b.flows): b for b in verdict.balance}
    for direction in ("read", "write"):
        one, many = by_test[(direction, 1)], by_test[(direction, 16)]
        # One flow rides one member: the other carried (almost) nothing of it.
        assert len(shares[(direction, 1)].idle) == 1, verdict.summary
        # Many flows hashed layer3+4 over both members: both members busy. How much more they carry than one
        # flow depends on the emulated CPU (a busy machine halves it): `make bench` (scripts/bench_vm_bond.py)
        # measures that, not this test.
        assert shares[(direction, 16)].idle == [], verdict.summary
        assert 0 < one.measured_bps <= 1.05 * one.expected_bps and 0 < many.measured_bps, verdict.summary
    assert [r.tool for r in ctx.raw].count("iperf3") == 4


def test_failover_bond_keeps_the_flow_when_its_member_is_pulled(no_bonds):
    vms = no_bonds
    bonds.far_end(vms, "FAILOVER")
    plan = bonds.apply_on_nas(vms, topology="switchless-peer", goal="failover")
    assert (plan.protocol, plan.protocol_native) == ("FAILOVER", "active-backup")
    text = bonds.bonding(vms, "nas")
    assert "Bonding Mode: fault-tolerance (active-backup)" in text
    assert "Currently Active Slave: eth0" in text

    m, moved = bonds.pull_during_flow(vms, port=0, seconds=8, after_bytes=10 * MB)  # about a second of it
    text = bonds.bonding(vms, "nas")
    assert "Currently Active Slave: eth1" in text
    assert text.split("Slave Interface: eth0", 1)[1].split("\n")[1] == "MII Status: down"
    # Both members carried the one flow, one after the other: eth0 until it was pulled, then eth1.
    assert moved["eth0"] >= 10 * MB and moved["eth1"] >= 20 * MB, moved
    assert m.bytes >= 0.9 * moved["eth0"] + 20 * MB  # the receiver got what crossed both cables
    assert 0 < m.goodput_bps <= 1.05 * plan.expected("read", 1).bps, m  # one member's rate at most: one flow
