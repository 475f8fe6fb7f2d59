"""Counting ports and cables, and where a switch starts to pay.

A full mesh of n hosts needs n(n-1)/2 cables and n(n-1) ports (each host one port per peer):
3 hosts -> 3 cables, 6 ports (seed 000's $120 build); 4 hosts -> 6 cables, 12 ports. A switched
star needs the switch, one port per host and one cable per host. The mesh grows with n squared,
the star linearly: the break-even is the first n where the star is cheaper. (The mesh still gives
every pair its own full-rate link, which a star with one uplink per host does not.)
"""
from __future__ import annotations

import math

from .models import BreakEven, CostEstimate, CostRow, MeshCounts
from .request import MeshPrices

# How far the break-even search looks; with any positive price the crossing comes long before.
MAX_HOSTS_SEARCHED = 4096


def mesh_ports(n: int) -> int:
    return n * (n - 1)


def mesh_cables(n: int) -> int:
    return n * (n - 1) // 2


def dual_port_cards(n: int) -> int:
    """Cards to fit every host from scratch with dual-port cards: ceil((n-1)/2) each."""
    return n * math.ceil((n - 1) / 2)


def count(n: int, ports_listed: int) -> MeshCounts:
    return MeshCounts(
        hosts=n,
        cables=mesh_cables(n),
        ports_used=mesh_ports(n),
        ports_spare=ports_listed - mesh_ports(n),
        dual_port_cards_to_buy=dual_port_cards(n),
    )


def _money(value: float) -> float:
    return round(value, 2)


def mesh_cost(n: int, prices: MeshPrices) -> float:
    return _money(mesh_ports(n) * prices.nic_port + mesh_cables(n) * prices.dac_cable)


def switch_cost(n: int, prices: MeshPrices) -> float:
    return _money(prices.switch + n * (prices.nic_port + prices.dac_cable))


def estimate(n: int, prices: MeshPrices) -> CostEstimate:
    return CostEstimate(
        currency=prices.currency,
        ports=mesh_ports(n),
        port_price=prices.nic_port,
        cables=mesh_cables(n),
        cable_price=prices.dac_cable,
        total=mesh_cost(n, prices),
        estimated_prices=prices.defaulted(),
    )


def break_even(n: int, prices: MeshPrices) -> BreakEven:
    cheaper_from = next(
        (k for k in range(2, MAX_HOSTS_SEARCHED + 1) if switch_cost(k, prices) < mesh_cost(k, prices)), None
    )
    last = max(n, cheaper_from or n, 4) + 1
    rows = [
        CostRow(
            hosts=k,
            mesh_ports=mesh_ports(k),
            mesh_cables=mesh_cables(k),
            mesh_cost=mesh_cost(k, prices),
            switch_cost=switch_cost(k, prices),
            switch_fits=k <= prices.switch_ports,
        )
        for k in range(2, last + 1)
    ]
    return BreakEven(rows=rows, switch_cheaper_from=cheaper_from, summary=_summary(n, cheaper_from, prices))


def _summary(n: int, cheaper_from: int | None, prices: MeshPrices) -> str:
    cur = prices.currency
    here = f"{n} hosts: mesh {mesh_cost(n, prices):.2f} {cur}, switch {switch_cost(n, prices):.2f} {cur}"
    if cheaper_from is None:
        return f"{here}; at these prices a switch never costs less than the mesh."
    verdict = "the mesh is cheaper here" if n < cheaper_from else "a switch is cheaper here"
    text = f"{here}; {verdict}. A switch costs less from {cheaper_from} hosts on."
    if cheaper_from > prices.switch_ports:
        text += f" (A {prices.switch_ports}-port switch serves only {prices.switch_ports} hosts: price a larger one.)"
    basis = prices.defaulted()
    if basis:
        text += f" Estimated prices: {', '.join(basis)} (tengig defaults; set your own)."
    return text
