"""system 'lab': the lab as three machines, measured the way a user's NAS is (issue 17, "the lab runs
exactly this path"). tengig on nas runs the suite as system local (its own pool, its own smbd); each
desktop the run measures joins it with `tengig client join` over its own cable. This module only starts
those processes on their hosts (nas_tengig.py), as a person would at each machine, drives the run over
nas's API and passes its progress on. The run is recorded by nas's tengig, in the caller's database."""
from __future__ import annotations

import subprocess
import threading
from typing import Any

from ..bench.run.over_api import Live, Progress, run_over_api
from ..bench.run.suite import SHARE_KINDS, BenchReport, BenchRunRequest
from ..errors import LabError, ValidationError
from .lab import Lab
from .nas_tengig import join_url, linked_desktops, nas_tengig, start_join
from ..units import MiB
from .plan import POOL_NAME, SHARE_NAME

JOINS_END_SECONDS = 60


class LabNas:
    """The lab as bench.run.suite's system 'lab': it runs the suite itself, on nas (``run_recorded``)."""

    name = "lab"
    pool = POOL_NAME
    # zfs-fuse emulates a pool (CPU-bound, 8 GiB sparse file): smaller files keep a lab run short
    pool_working_set = 128 * MiB

    def __init__(self, lab: Lab):
        st = lab.require_up()
        if st.spec.bare:
            raise LabError("a bare lab has no pool or share: run `tengig lab up` without --bare to measure it")
        self.lab = lab
        self.nas = st.spec.nas
        self.default_clients = linked_desktops(lab)

    def clients(self, req: BenchRunRequest) -> list[str]:
        """The desktops that join: those named, else the first with a cable to nas; none for the pool alone."""
        if req.kind == "pool":
            return []
        if req.join or req.share:
            raise ValidationError.one("join" if req.join else "share", "on the lab, the desktops named in clients "
                                      "join by themselves and copy to the lab's share; leave join and share out")
        clients = req.clients or self.default_clients[:1]
        for i, c in enumerate(clients):
            if c not in self.default_clients:
                raise ValidationError.one(f"clients.{i}", f"{c!r} is not a desktop with a cable to {self.nas}; "
                                          f"use one of {', '.join(self.default_clients) or 'none (add a cable)'}")
        if len(set(clients)) != len(clients):
            raise ValidationError.one("clients", "each client once")
        if not clients:
            raise ValidationError.one("clients", f"{req.kind}: no desktop of the lab has a cable to {self.nas}")
        return clients

    def nas_request(self, req: BenchRunRequest, clients: list[str]) -> dict[str, Any]:
        """What is asked of tengig on nas: system local, its pool, the desktops to wait for, its share."""
        request = req.model_dump(exclude={"clients", "join", "share", "join_timeout"}, exclude_none=True)
        request.update(system="local", pool=self.pool, join=len(clients))
        request.setdefault("working_set", self.pool_working_set)
        if clients and req.kind in SHARE_KINDS:
            request["share"] = SHARE_NAME
        return request

    def run_recorded(self, req: BenchRunRequest, store, *, progress: Progress | None = None,
                     cancel: threading.Event | None = None, live: Live | None = None) -> tuple[int, BenchReport]:
        clients = self.clients(req)
        joins: list[subprocess.Popen] = []

        def start_desktops(session: dict[str, Any]) -> None:
            joins.extend(start_join(self.lab, c, join_url(self.lab, c), session["token"]) for c in clients)

        with nas_tengig(self.lab, store.path) as (api, _):
            try:
                result = run_over_api(api, self.nas_request(req, clients), on_session=start_desktops,
                                      progress=progress, cancel=cancel, live=live)
            finally:
                _end(joins)  # while nas still serves: each desktop hears the end
        return result["run_id"], BenchReport.model_validate(result["report"])


def _end(joins: list[subprocess.Popen]) -> None:
    """The desktops end with the run (done or abort); any still running is stopped."""
    for proc in joins:
        try:
            proc.wait(timeout=JOINS_END_SECONDS)
        except Exception:
            proc.kill()
            proc.wait(timeout=10)
