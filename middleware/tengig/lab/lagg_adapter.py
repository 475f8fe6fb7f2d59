"""The lab as lagg.measure.MeasuringSystem: a LAGG on nas measured from a desktop of the lab (iperf3 on
the desktop, the member counters on nas), each program started on its host by the lab's own setup. The
lab is the one place tengig can drive both ends of a LAGG test today; on a user's NAS the far end is a
desktop that measures and sends its numbers (tengig.lagg.analyse)."""
from __future__ import annotations

from ..bench.context import BenchContext
from ..bench.phases.network import LinkUnderTest
from ..backends.linux.link_stats import ip_link_bytes
from ..lagg.verify import PortBytes
from .hosts import LabHosts, lab_link
from .lab import Lab


class LabLaggSystem:
    name = "lab"

    def __init__(self, lab: Lab):
        st = lab.require_up()
        self.lab = lab
        self.nas = st.spec.nas
        self.default_clients = list(st.spec.hosts[1:])
        self.hosts = LabHosts(lab)

    def link(self, client: str) -> LinkUnderTest:
        return lab_link(self.lab, client, self.nas)

    def port_bytes(self, ctx: BenchContext, host: str) -> PortBytes:
        """The lab's nas is Linux: `ip -s -j link`."""
        return ip_link_bytes(ctx, host)
