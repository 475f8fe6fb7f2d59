"""What the benchmarks need to know about the lab: its links as LinkUnderTest (configured rates
stand in for the negotiated speed a real NIC reports)."""
from __future__ import annotations

from ..bench.network import LinkUnderTest
from .lab import Lab


def lab_link(lab: Lab, client: str, server: str | None = None) -> LinkUnderTest:
    plan = lab.plan()
    server = server or plan.spec.nas
    cable = plan.cable(client, server)
    return LinkUnderTest(
        name=cable.name,
        client=client,
        server=server,
        server_address=plan.address_of(server, client),
        client_address=plan.address_of(client, server),
        line_rate_bps=cable.shaping.line_rate_bps if cable.shaping else None,
        mtu=cable.mtu,
    )
