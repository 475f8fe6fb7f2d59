"""make bench: LAGG apply and verify on a real bond, in the VM lab (docs/vm-lab.md): two VMs on Debian's
kernel joined by two cables shaped to 100 Mb/s. tengig's `lagg apply` makes the bond in the nas VM, its
verify measures it from desk (iperf3 read/write x 1/4 flows, 10 s each) against the plan, for
- LACP, layer3+4 (switchless peer bonding the same way): one flow one member, four flows about the sum
  (or all on one member, 1 time in 8: each flow's source port is random, and verify says so);
- ROUNDROBIN on an unmanaged switch (seed 002; desk's end sends everything for nas's MAC through one
  cable, as a switch does): reads (nas sends) the sum, writes one member;
- FAILOVER: one flow for 20 s while the active member's cable is pulled after about 2 s.
Prints verify's summary per protocol, the kernel's bonding mode, and the failover's bytes per member."""
from __future__ import annotations

import argparse
import sys
import time

from tengig.lab.vm import bonds
from tengig.lab.vm.machines import VmLab, build_image
from tengig.runner import Runner

SCENARIOS = {
    "LACP": {"topology": "switchless-peer"},
    "ROUNDROBIN": {"topology": "unmanaged-switch", "clients": 4},
    "FAILOVER": {"topology": "switchless-peer", "goal": "failover"},
}
MB = 10**6


def mode_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.startswith("Bonding Mode:")), "no bonding mode")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=10, help="measured seconds per iperf3 test")
    parser.add_argument("--rate", default="100mbit", help="each cable's rate (tbf), e.g. 50mbit")
    args = parser.parse_args()
    started = time.monotonic()
    lab = VmLab(build_image(Runner()), rate=args.rate)
    try:
        lab.up()
        print(f"vm bond: two VMs up in {time.monotonic() - started:.0f} s, cables {args.rate} each")
        for protocol, how in SCENARIOS.items():
            bonds.far_end(lab, protocol)
            plan = bonds.apply_on_nas(lab, **how)
            text = bonds.wait_lacp(lab) if protocol == "LACP" else bonds.bonding(lab, "nas")
            print(f"\n{plan.name} {plan.protocol} ({plan.protocol_native}) by `tengig lagg apply` in nas; kernel: "
                  f"{mode_line(text)}")
            if protocol == "FAILOVER":
                m, moved = bonds.pull_during_flow(lab, port=0, seconds=2 * args.seconds, after_bytes=20 * MB)
                after = bonds.bonding(lab, "nas")
                active = next(line for line in after.splitlines() if line.startswith("Currently Active Slave"))
                print(f"one flow {2 * args.seconds} s, eth0's cable pulled after 20 MB: {m.goodput_bps / 1e6:.1f} Mb/s, "
                      f"{m.bytes / MB:.0f} MB received; sent by eth0 {moved['eth0'] / MB:.0f} MB, by eth1 "
                      f"{moved['eth1'] / MB:.0f} MB; {active}; plan: {plan.expected('read', 1).bps / 1e6:.1f} Mb/s")
            else:
                _, verdict, _ = bonds.verify(lab, plan, seconds=args.seconds, omit=2)
                print(verdict.summary)
            bonds.remove_bonds(lab)
            lab.set_cable(0, True)
    finally:
        lab.down()
    print(f"\nvm bond: {time.monotonic() - started:.0f} s in all")


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
