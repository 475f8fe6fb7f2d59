"""tengig.nic: what each port is and how it is doing, on the system the request names
(systems/resolve.nics: a lab host, this machine, or the TrueNAS of the host's seams)."""
from __future__ import annotations

from typing import Any

from ...systems.resolve import nics
from ..decorators import api_method
from ..exceptions import api_errors
from ..models.nic import TenGigNicQueryArgs, TenGigNicQueryOptions, TenGigNicQueryResult
from ..params import typed
from ..service import Service


class TenGigNicService(Service):
    """Network ports: speed, duplex, MTU, driver, card, link flaps."""

    class Config:
        namespace = "tengig.nic"
        cli_namespace = "tengig.nic"

    @api_method(TenGigNicQueryArgs, TenGigNicQueryResult, roles=["READONLY_ADMIN"])
    def query(self, options: TenGigNicQueryOptions | dict[str, Any] | None = None):
        """Every port of the machine (or lab host), with what the kernel and ethtool say about it."""
        options = typed(TenGigNicQueryOptions, options, "options")
        with api_errors(prefix="options"):
            found = nics(options.system, options.host, self.seams.truenas, self.seams.host_os)
        if not options.include_virtual:
            found = [n for n in found if n.kind != "virtual"]
        return found


SERVICE = TenGigNicService
