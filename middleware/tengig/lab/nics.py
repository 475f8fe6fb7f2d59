"""The lab's NIC inventory: what the kernel and ethtool say about a lab host's ports, with each cable
end (a veth, standing in for a port and its cable) reported as the physical port it emulates, at the
line rate the lab shapes its cable to (the lab's "negotiated speed"). The driver stays `veth` and the
card unknown, so nothing pretends to be hardware it is not; other interfaces are left as they are."""
from __future__ import annotations

from ..backends.linux.nics import linux_nics
from ..nic.models import Nic
from .lab import Lab


def lab_nics(lab: Lab, host: str) -> list[Nic]:
    plan = lab.plan()
    cable_ends = {}
    for cable in plan.cables:
        for port in (cable.a, cable.b):
            if port.host == host:
                cable_ends[port.ifname] = cable.shaping.line_rate_bps if cable.shaping else None
    nics = linux_nics(lab.runner, netns=lab.netns(host))
    return [n.model_copy(update={"kind": "physical", "speed_bps": cable_ends[n.name] or n.speed_bps})
            if n.name in cable_ends else n for n in nics]
