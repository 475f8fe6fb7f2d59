"""What a NAS may ask a desktop to do towards another desktop (a mesh verify's cable between two peers,
mesh/joined.py): the ``peer`` instruction, checked before anything runs.

The rule: a desktop listens on, or connects to, only an IPv4 address on a subnet one of its own interfaces
is directly attached to (a route with no gateway: its own cable's subnet), of at most 256 addresses (/24 or
narrower: every mesh link tengig plans), never that subnet's network or broadcast address; it listens only
on an address of its own; only on tengig's iperf3 ports (PEER_PORTS), and for a bounded time (PEER_LIMITS;
a server it started is stopped at its deadline, at the run's end, or at the next listen). A NAS cannot send
it to a host behind a router, to the internet, or to a port of another service; everything else is refused
with a message naming the instruction's field.

The attached subnets are read with no tool to install: Linux's /proc/net/route (routes without a gateway),
`ifconfig` elsewhere (each address with its prefix length)."""
from __future__ import annotations

import errno
import ipaddress
import platform
import socket
from pathlib import Path
from typing import Any

from ..backends.freebsd.ifconfig import parse_ifconfig
from ..backends.linux.proc_route import parse_proc_route_attached
from ..errors import CommandNotFound, CommandTimeout, ValidationError
from ..join_protocol.limits import PEER_LIMITS, PEER_OPS, PEER_PORTS
from ..runner import Runner

LISTEN_SLACK_S = 30  # a server lives this much past its test: the other desktop's instruction and iperf3 starting
NARROWEST_PREFIX = 24  # a subnet of at most 256 addresses
PROC_ROUTE = Path("/proc/net/route")

Subnet = ipaddress.IPv4Network


def attached_subnets(runner: Runner, *, system: str | None = None) -> list[Subnet]:
    """The IPv4 subnets this desktop's interfaces are directly attached to (none when they cannot be read:
    every peer instruction is then refused)."""
    if (system or platform.system()) == "Linux":
        try:
            return parse_proc_route_attached(PROC_ROUTE.read_text())
        except OSError:
            return []
    try:
        shown = runner.run(["ifconfig"], timeout=10, check=False)
    except (CommandNotFound, CommandTimeout):
        return []
    return parse_attached_ifconfig(shown.stdout) if shown.returncode == 0 else []


def parse_attached_ifconfig(text: str) -> list[Subnet]:
    """The subnets of ``ifconfig``'s IPv4 addresses (a /32 alias attaches no subnet)."""
    out: list[Subnet] = []
    for entry in parse_ifconfig(text):
        for address in entry.addresses:
            try:
                subnet = ipaddress.IPv4Interface(address).network
            except ValueError:
                continue  # IPv6
            if subnet.prefixlen < 32 and subnet not in out:
                out.append(subnet)
    return out


def _int(params: dict[str, Any], name: str, lo: int, hi: int, what: str) -> int:
    value = params.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValidationError.one(f"instruction.{name}", f"{value!r} is not a whole number from {lo} to {hi} ({what})")
    return value


def _on_own_cable(params: dict[str, Any], name: str, attached: list[Subnet]) -> str:
    value = params.get(name)
    try:
        address = ipaddress.IPv4Address(str(value))
    except ValueError:
        raise ValidationError.one(f"instruction.{name}", f"{value!r} is not an IPv4 address") from None
    subnet = next((s for s in attached if address in s and s.prefixlen >= NARROWEST_PREFIX), None)
    if subnet is None:
        near = ", ".join(str(s) for s in attached if s.prefixlen >= NARROWEST_PREFIX) or "none"
        raise ValidationError.one(f"instruction.{name}", (
            f"{address} is not on a subnet of /{NARROWEST_PREFIX} or narrower that one of this desktop's interfaces "
            f"is directly attached to ({near}): towards another desktop, tengig only uses this desktop's own "
            "cables"))
    if subnet.prefixlen < 31 and address in (subnet.network_address, subnet.broadcast_address):
        raise ValidationError.one(f"instruction.{name}", f"{address} is the network or broadcast address of "
                                  f"{subnet}, not a host on it")
    return str(address)


def _port(params: dict[str, Any]) -> int:
    return _int(params, "port", *PEER_PORTS, "tengig's iperf3 ports")


def _bounded(params: dict[str, Any], names: tuple[str, ...]) -> dict[str, int]:
    return {n: _int(params, n, *PEER_LIMITS[n], "a peer test's bound") for n in names}


def peer_op(params: dict[str, Any]) -> str:
    op = params.get("op")
    if op not in PEER_OPS:
        raise ValidationError.one("instruction.op", f"{op!r} is not one of {', '.join(PEER_OPS)}")
    return op


def own_address(address: str) -> bool:
    """Whether this desktop holds ``address`` (it can bind a socket to it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((address, 0))
        except OSError as exc:
            if exc.errno == errno.EADDRNOTAVAIL:
                return False
            raise
    return True


def listen_argv(params: dict[str, Any], attached: list[Subnet]) -> tuple[list[str], float]:
    """(iperf3's one-test server argv, the seconds it may live) of a ``listen``, validated: ``bind`` one of
    this desktop's own addresses on an attached subnet."""
    address = _on_own_cable(params, "bind", attached)
    if not own_address(address):
        raise ValidationError.one("instruction.bind", f"{address} is not an address of this desktop: it listens "
                                  "only on its own")
    port, n = _port(params), _bounded(params, ("seconds", "omit"))
    return (["iperf3", "-s", "-1", "-J", "-B", address, "-p", str(port)],
            n["seconds"] + n["omit"] + LISTEN_SLACK_S)


def connect_argv(params: dict[str, Any], attached: list[Subnet]) -> list[str]:
    """iperf3's client argv of a ``connect``, validated: ``server`` on an attached subnet."""
    address = _on_own_cable(params, "server", attached)
    port, n = _port(params), _bounded(params, ("seconds", "omit", "streams"))
    argv = ["iperf3", "-c", address, "-p", str(port), "-t", str(n["seconds"]), "-O", str(n["omit"]),
            "-P", str(n["streams"]), "-J"]
    return argv + (["-R"] if params.get("reverse") is True else [])


def served_port(params: dict[str, Any]) -> int:
    return _port(params)
