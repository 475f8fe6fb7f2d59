"""A stored run as the fix rules read it (pure): each desktop's verdict and the facts it was judged on,
rebuilt from the run's own report exactly as the run built them (bench/run/suite.py), and where it ran."""
from __future__ import annotations

import errno
from dataclasses import dataclass

from pydantic import ValidationError as PydanticValidationError

from ..bench.phases.pool import pool_facts
from ..bench.run.suite import BenchReport, ClientReport, facts_from
from ..errors import TengigError
from ..results.models import RunRecord
from ..verdict.models import Facts, Verdict
from .models import Platform


@dataclass(frozen=True)
class ClientView:
    name: str
    report: ClientReport
    verdict: Verdict
    facts: Facts


@dataclass(frozen=True)
class RunView:
    run: RunRecord
    report: BenchReport
    platform: Platform
    clients: list[ClientView]
    network_owner: Platform | None = None  # who changes the NAS's ports now, when not ``platform`` (a TrueNAS's
    # middlewared that tengig runs in owns them, whatever the run's environment recorded)

    @property
    def network_platform(self) -> Platform:
        return self.network_owner or self.platform

    @property
    def nas(self) -> str | None:
        """What the run called the NAS (the server end of its desktops' links)."""
        return next((c.report.link.server for c in self.clients if c.report.link), None)


def host_of(run: RunRecord) -> str | None:
    """The NAS a run measured, as its environment named it (its host name); None: not recorded."""
    return run.environment.hostname if run.environment else None


def path_mtus(nas: str, report: ClientReport) -> dict[str, int]:
    """The MTUs along one desktop's path, keyed as the run keyed them (bench/run/suite_joined.py)."""
    mtus: dict[str, int] = {}
    if report.nas_port is not None:
        mtus[f"{nas}:{report.nas_port.ifname}"] = report.nas_port.mtu
    joined = report.joined or {}
    if isinstance(joined.get("mtu"), int) and joined["mtu"]:
        mtus[f"{report.client}:{joined.get('interface') or 'its port'}"] = joined["mtu"]
    return mtus


def view_of(run: RunRecord, network_owner: Platform | None = None) -> RunView:
    """The run's desktops with their verdicts; TengigError naming the run when it has none to fix from.
    ``network_owner``: who changes the NAS's ports now ('truenas': tengig runs inside its middlewared)."""
    if run.status != "success" or run.results is None:
        raise TengigError(f"run {run.id} {run.status} and has no verdict to fix from; fix from a run that "
                          "succeeded", errno=errno.EINVAL)
    try:
        report = BenchReport.model_validate(run.results)
    except PydanticValidationError as exc:
        raise TengigError(f"run {run.id}'s results are not a benchmark report this tengig reads ({exc.errors()[0]['msg']}); "
                          "measure again and fix from that run", errno=errno.EINVAL) from exc
    env = run.environment
    clients = []
    for r in report.clients:
        if r.verdict is None or r.lost is not None:
            continue
        nas = r.link.server if r.link else "nas"
        facts = facts_from(r, path_mtus(nas, r)).model_copy(update=pool_facts(report.pool))
        clients.append(ClientView(name=r.client, report=r, verdict=r.verdict, facts=facts))
    truenas = (env is not None and env.truenas_version is not None) or any(c.facts.nas_truenas for c in clients)
    return RunView(run=run, report=report, platform="truenas" if truenas else "system", clients=clients,
                   network_owner=network_owner)
