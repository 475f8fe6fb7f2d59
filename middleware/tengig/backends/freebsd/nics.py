"""The NIC inventory of a FreeBSD host (TrueNAS CORE) as tengig.nic.Nic.

- name, MTU, MAC, addresses, carrier (`status:`), negotiated speed and duplex (`media:`), lagg and
  bridge membership: `ifconfig -a -v` (tengig.backends.freebsd.ifconfig);
- driver: the interface name's (ix0 -> ix; cloned interfaces too: lagg0 -> lagg), or the device
  tree's `dev.ix.0.%driver` when it has the node. An interface renamed with `ifconfig ix0 name lan0`
  reads as driver "lan", not physical: FreeBSD keeps no link from the new name to the device;
- physical or not, and the PCI slot: the device tree through the sysctl seam. A port of a card has a
  node `dev.<driver>.<unit>` (cloned lagg, bridge, vlan, tap interfaces have none), whose %location
  (`slot=0 function=1 dbsf=pci0:24:0:1`: domain, bus, slot, function, decimal) gives the slot. A
  %location without dbsf (slot and function but no bus) gives no slot: guessing the bus would put two
  cards' ports on one "card";
- link flaps: the kernel log (tengig.backends.freebsd.kernel_log).

A speed that cannot be read is None, never 0; a speed is only given while the link is up.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Literal

from ...errors import TengigError
from ...nic.models import Nic, card_of_pci_slot
from ...runner import Runner
from .ifconfig import IfconfigEntry, link_of, parse_ifconfig, parse_media
from .kernel_log import count_link_downs, parse_link_events
from .sysctl import LibrarySysctl, ProgramSysctl, SysctlSource

TOOL_TIMEOUT = 10
IFCONFIG_ALL = ["ifconfig", "-a", "-v"]
_UNIT = re.compile(r"^(?P<driver>[a-z_]+?)(?P<unit>\d+)$")
_DBSF = re.compile(r"(?:^|\s)dbsf=pci(?P<domain>\d+):(?P<bus>\d+):(?P<slot>\d+):(?P<function>\d+)(?:\s|$)")

Kind = Literal["physical", "virtual", "bond", "bridge", "vlan", "loopback"]


def pci_slot_of_location(location: str | None) -> str | None:
    """'slot=0 function=1 dbsf=pci0:24:0:1' -> '0000:18:00.1' (the Linux spelling, hex); None without dbsf."""
    m = _DBSF.search(location or "")
    if m is None:
        return None
    domain, bus, slot, function = (int(m.group(k)) for k in ("domain", "bus", "slot", "function"))
    if domain > 0xFFFF or bus > 0xFF or slot > 0x1F or function > 7:
        return None
    return f"{domain:04x}:{bus:02x}:{slot:02x}.{function}"


class _Device:
    """What the device tree says about an interface: dev.<driver>.<unit>.%driver and .%location."""

    def __init__(self, name: str, sysctl: SysctlSource):
        m = _UNIT.match(name)
        self.name_driver = m.group("driver") if m else None
        self.driver: str | None = None
        self.location: str | None = None
        if m is not None:
            node = f"dev.{m.group('driver')}.{m.group('unit')}"
            driver = sysctl.values(f"{node}.%driver").get(f"{node}.%driver")
            location = sysctl.values(f"{node}.%location").get(f"{node}.%location")
            self.driver = str(driver) if driver not in (None, "") else None
            self.location = location if isinstance(location, str) else None

    @property
    def in_tree(self) -> bool:
        """A device attached by a driver (a port of a card); cloned interfaces (lagg, bridge, tap,
        vlan) have no node."""
        return self.driver is not None or self.location is not None

    @property
    def pci_slot(self) -> str | None:
        return pci_slot_of_location(self.location)


def _kind(entry: IfconfigEntry, device: _Device) -> Kind:
    if "LOOPBACK" in entry.flags:
        return "loopback"
    if entry.laggproto is not None or "lagg" in entry.groups:
        return "bond"
    if entry.bridge_members or "bridge" in entry.groups:
        return "bridge"
    if entry.vlan or "vlan" in entry.groups:
        return "vlan"
    return "physical" if device.in_tree else "virtual"


def nics_from_ifconfig(ifconfig_text: str, sysctl: SysctlSource, kernel_log: str = "", *,
                       session_interface: str | None = None, include_loopback: bool = False) -> list[Nic]:
    """`ifconfig -v` output + the device tree (through the seam) + the kernel log -> Nic per interface."""
    entries = parse_ifconfig(ifconfig_text)
    member_of = {port: e.name for e in entries for port in [*e.laggports, *e.bridge_members]}
    out = []
    for entry in entries:
        if "LOOPBACK" in entry.flags and not include_loopback:
            continue
        device = _Device(entry.name, sysctl)
        pci_slot = device.pci_slot
        driver = device.driver or device.name_driver  # ix0 -> ix; lagg0, bridge0, tap0 are named after theirs
        link = link_of(entry.status)
        speed, duplex = parse_media(entry.media) if link == "up" else (None, None)
        out.append(Nic(
            name=entry.name, kind=_kind(entry, device), mac=entry.mac, link=link, speed_bps=speed, duplex=duplex,
            mtu=entry.mtu, driver=driver, pci_slot=pci_slot, card=card_of_pci_slot(pci_slot), addresses=list(entry.addresses),
            in_use_by=member_of.get(entry.name), carries_session=entry.name == session_interface,
            link_flaps=count_link_downs(kernel_log, entry.name),
            flap_events=parse_link_events(kernel_log, entry.name),
        ))
    return out


def _program_sysctl(runner: Runner) -> ProgramSysctl:
    def run(argv: list[str]) -> tuple[int, str]:
        done = runner.run(argv, timeout=TOOL_TIMEOUT, check=False)
        return done.returncode, done.stdout

    return ProgramSysctl(run)


def default_sysctl(runner: Runner, *, library: Callable[[], SysctlSource] = LibrarySysctl) -> SysctlSource:
    """This kernel's sysctl tree through freebsd-sysctl when this is FreeBSD and it is installed, else
    the `sysctl` program through the runner (which may reach another host)."""
    if sys.platform.startswith("freebsd"):
        try:
            return library()
        except TengigError:  # the package is optional; the program is always there
            pass
    return _program_sysctl(runner)


def interface_with_address(ifconfig_text: str, address: str) -> str | None:
    """The interface that holds ``address`` (e.g. this host's end of an SSH session), or None."""
    for entry in parse_ifconfig(ifconfig_text):
        if any(held.split("/")[0] == address for held in entry.addresses):
            return entry.name
    return None


def freebsd_nics(runner: Runner | None = None, *, sysctl: SysctlSource | None = None,
                 session_address: str | None = None, include_loopback: bool = False) -> list[Nic]:
    """Run `ifconfig -a -v` (every interface, with lagg members' states) and `dmesg` (the message buffer:
    its boot line tells whether flaps can be counted) and read the device tree; a kernel log that cannot
    be read (a jail may not read the message buffer) leaves flaps unknown. Without a runner this host is
    read (its sysctl tree through freebsd-sysctl when installed); a given runner may reach another host,
    so `sysctl` runs through it too. ``session_address``: this host's address of the caller's session
    (SSH_CONNECTION's third word); the interface holding it carries the session."""
    if sysctl is None:
        sysctl = default_sysctl(Runner()) if runner is None else _program_sysctl(runner)
    runner = runner or Runner()
    ifconfig = runner.run(IFCONFIG_ALL, timeout=TOOL_TIMEOUT)
    log = runner.run(["dmesg"], timeout=TOOL_TIMEOUT, check=False)
    session = interface_with_address(ifconfig.stdout, session_address) if session_address else None
    return nics_from_ifconfig(ifconfig.stdout, sysctl,
                              log.stdout if log.returncode == 0 else "",
                              session_interface=session, include_loopback=include_loopback)
