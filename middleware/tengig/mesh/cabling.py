"""Which port on each host takes the cable to each peer.

Two steps. First every host pair gets a line rate both ends have a free port for (a DAC runs at
one speed; a 10G port and a 25G port are not cabled together here). With one speed everywhere
this is a straight walk; with mixed speeds it is a small constraint search (fastest speed first,
most constrained pair first, bounded so a hopeless request fails quickly). Then each host hands
its ports to its peers, spreading cables across cards: a dual-port card shares one PCIe link and
may not carry two full-rate cables (docs/physics.md §4: an Intel X540-T2 carried ~14 Gb/s per card).

Everything is ordered by names (natural order: enp3s0f2 before enp3s0f10), never by input order,
so a shuffled request gives the same cabling.
"""
from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..errors import ValidationError
from ..names import natural_key
from ..units import format_rate
from .request import MeshHost, MeshPort

SEARCH_BUDGET = 200_000  # search steps before giving up on a mixed-speed request


@dataclass(frozen=True)
class Wire:
    """One planned cable: hosts a < b by name, the speed, and the port used at each end."""

    a: str
    b: str
    speed_bps: int
    port_a: MeshPort
    port_b: MeshPort


def wire_mesh(hosts: Sequence[MeshHost], input_index: Mapping[str, int]) -> list[Wire]:
    """Cables for every host pair, sorted by (a, b). `input_index` maps a host to its request index
    so errors can point at `hosts.N.ports`. Names, counts and pins are already validated."""
    by_name = {h.name: h for h in hosts}
    pins = {h.name: {p.peer: p for p in h.ports if p.peer is not None} for h in hosts}
    pairs = list(combinations(sorted(by_name), 2))
    speeds = _choose_speeds(by_name, pins, pairs, input_index)
    ports = _choose_ports(by_name, pins, speeds)
    return [Wire(a, b, speeds[(a, b)], ports[(a, b)][a], ports[(a, b)][b]) for a, b in pairs]


def _free_speeds(host: MeshHost) -> Counter[int]:
    return Counter(p.speed_bps for p in host.ports if p.peer is None)


def _candidates(host: MeshHost, peer: str, pins: Mapping[str, Mapping[str, MeshPort]], free: Counter[int]) -> set[int]:
    pinned = pins[host.name].get(peer)
    return {pinned.speed_bps} if pinned else {s for s, n in free.items() if n > 0}


def _choose_speeds(by_name, pins, pairs, input_index) -> dict[tuple[str, str], int]:
    free = {name: _free_speeds(host) for name, host in by_name.items()}
    options: dict[tuple[str, str], list[int]] = {}
    errors = []
    for a, b in pairs:
        common = _candidates(by_name[a], b, pins, free[a]) & _candidates(by_name[b], a, pins, free[b])
        if not common:
            errors.append(_no_common_speed(by_name[a], by_name[b], pins, input_index))
        options[(a, b)] = sorted(common, reverse=True)  # fastest first
    if errors:
        raise ValidationError(errors)

    # Most constrained pairs first: one-speed pairs are then just bookkeeping, and a real
    # choice is only searched where there is one.
    order = sorted(pairs, key=lambda pair: (len(options[pair]), pair))
    capacity = {name: Counter(f) for name, f in free.items()}
    choice = [-1] * len(order)
    k = steps = 0

    def take(pair, speed, delta):
        for host, peer in (pair, pair[::-1]):
            if peer not in pins[host]:  # a pinned port is already reserved; it uses no free capacity
                capacity[host][speed] -= delta

    def fits(pair, speed):
        return all(peer in pins[host] or capacity[host][speed] > 0 for host, peer in (pair, pair[::-1]))

    while 0 <= k < len(order):
        steps += 1
        if steps > SEARCH_BUDGET:
            raise ValidationError.one(
                "hosts", "too many mixed-speed combinations to search; reserve ports for some cables with "
                "ports[].peer, or give hosts ports of one speed",
            )
        pair, opts = order[k], options[order[k]]
        if choice[k] >= 0:
            take(pair, opts[choice[k]], -1)
        choice[k] += 1
        while choice[k] < len(opts) and not fits(pair, opts[choice[k]]):
            choice[k] += 1
        if choice[k] < len(opts):
            take(pair, opts[choice[k]], +1)
            k += 1
        else:
            choice[k] = -1
            k -= 1
    if k < 0:
        raise ValidationError([_speed_shortage(by_name, pins, options, free, input_index)])
    return {pair: options[pair][choice[i]] for i, pair in enumerate(order)}


def _no_common_speed(a: MeshHost, b: MeshHost, pins, input_index) -> tuple[str, str]:
    def offers(host: MeshHost, peer: str) -> str:
        pinned = pins[host.name].get(peer)
        if pinned:
            return f"{host.name} reserves {pinned.name} ({format_rate(pinned.speed_bps)}) for {peer}"
        speeds = sorted(_free_speeds(host), reverse=True)
        return f"{host.name} has {', '.join(format_rate(s) for s in speeds) or 'no free ports'}"

    # Point at the host listed later: usually the one just added to a working request.
    blamed = max((a, b), key=lambda h: input_index[h.name])
    return (
        f"hosts.{input_index[blamed.name]}.ports",
        f"{a.name} and {b.name} have no port speed in common ({offers(a, b.name)}; {offers(b, a.name)}); "
        "a cable needs the same speed at both ends",
    )


def _speed_shortage(by_name, pins, options, free, input_index) -> tuple[str, str]:
    """Why no assignment exists, pointing at the host whose ports run out first."""
    demand: dict[str, Counter[int]] = defaultdict(Counter)
    for (a, b), opts in options.items():
        if len(opts) == 1:
            for host, peer in ((a, b), (b, a)):
                if peer not in pins[host]:
                    demand[host][opts[0]] += 1
    for name in sorted(by_name, key=input_index.__getitem__):
        for speed, needed in sorted(demand[name].items()):
            if needed > free[name][speed]:
                return (
                    f"hosts.{input_index[name]}.ports",
                    f"{name} needs {needed} free {format_rate(speed)} ports (its peers reach it at no other speed) "
                    f"but has {free[name][speed]}",
                )
    return (
        "hosts",
        "no choice of speeds gives every host pair a cable with the same speed at both ends; "
        "add ports or reserve ports with ports[].peer",
    )


def _choose_ports(by_name, pins, speeds) -> dict[tuple[str, str], dict[str, MeshPort]]:
    chosen: dict[tuple[str, str], dict[str, MeshPort]] = defaultdict(dict)
    for name, host in by_name.items():
        load: Counter[tuple] = Counter(_card_key(port) for port in pins[name].values())
        # Free ports by speed, then by card, each card's ports in natural order.
        free: dict[int, dict[tuple, deque[MeshPort]]] = defaultdict(lambda: defaultdict(deque))
        for port in sorted((p for p in host.ports if p.peer is None), key=lambda p: natural_key(p.name)):
            free[port.speed_bps][_card_key(port)].append(port)
        for peer in sorted(other for other in by_name if other != name):
            pair = (name, peer) if name < peer else (peer, name)
            port = pins[name].get(peer)
            if port is None:
                cards = free[speeds[pair]]
                card = min(cards, key=lambda c: (load[c], c))  # the least loaded card first
                port = cards[card].popleft()
                if not cards[card]:
                    del cards[card]
                load[card] += 1
            chosen[pair][name] = port
    return chosen


def _card_key(port: MeshPort) -> tuple:
    # A port on an unknown card counts as a card of its own: nothing to spread it away from.
    return (0, natural_key(port.card)) if port.card else (1, natural_key(port.name))
