"""tengig.nic: what each port is and how it is doing (delegates to the platform backend)."""
from __future__ import annotations

import os
from typing import Any

from ...backends.truenas.connection import configured_truenas
from ...errors import ValidationError
from ...lab import Lab
from ...lab.nics import lab_nics
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
            if options.system == "lab":
                lab = Lab()
                spec = lab.require_up().spec
                host = options.host or spec.nas
                if host not in spec.hosts:
                    raise ValidationError.one("host", f"{host!r} is not a lab host ({', '.join(spec.hosts)})")
                nics = lab_nics(lab, host)
            else:
                if options.host:
                    raise ValidationError.one("host", f"only with system 'lab': '{options.system}' is one machine")
                if options.system == "truenas":
                    with configured_truenas() as backend:
                        nics = backend.nics()
                else:
                    # this machine's OS reads its ports (self.seams.host_os: Linux's or FreeBSD's tools),
                    # and marks the one an SSH session arrived on
                    nics = self.seams.host_os().nics(os.environ.get("SSH_CONNECTION"))
        if not options.include_virtual:
            nics = [n for n in nics if n.kind != "virtual"]
        return nics


SERVICE = TenGigNicService
