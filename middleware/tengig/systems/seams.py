"""Where the services act, as one object their host hands them: ``Seams``. Each field is a function the
services call instead of reaching for a machine themselves; the defaults are the real ones (this
module's resolvers, programs run on this machine). A host that wants other seams builds its services
with them (``Registry.default(seams=...)``, ``TengigServer(seams=...)``); nothing patches a class.

- ``bench_system(system, pool)``: the BenchSystem benchmarks measure: resolve.bench_system.
- ``lagg_system()``: where tengig.lagg.verify measures a LAGG from (the lab): resolve.lagg_system.
- ``joined_nas(system, truenas_reason)``: where a verify that desktops join runs the NAS's own programs
  (this machine, the NAS: its name and Hosts): resolve.joined_nas.
- ``mesh_system(system, hosts)``: the MeshSystem a mesh is applied on and verified from:
  resolve.mesh_system.
- ``run_on_nas(argv)``: run argv where the NAS is, for the pings that prove a TrueNAS mesh change
  (tengig runs on the NAS in the plugin and as its app): this machine.
- ``lagg_probe(name, address)``: the probe that proves a new TrueNAS LAGG answers (a ping to
  ``address`` through ``name``), run where the NAS is: this machine.
- ``host_os()``: this machine's OS (systems/host_os.py), whose tools tengig.nic.query reads: Linux's
  or FreeBSD's, by what the machine says it is.
- ``truenas(session=None)``: the TrueNAS ``system: truenas`` means, as a ``with`` giving a TrueNASBackend
  (systems/truenas.py): the configured one, or this machine's middlewared when it is a TrueNAS;
  ``session`` is the job it serves (inside middlewared it carries the caller's connection).
- ``truenas_here()``: why this machine is a TrueNAS (None: it is not); there, an apply that would
  change interfaces with iproute2 is refused (resolve.refuse_iproute2_on_truenas).

Inside TrueNAS's middlewared the plugin builds the services with ``inside_middlewared(middleware)``:
``truenas`` is middlewared itself (its own methods, no configuration), and this machine is a TrueNAS.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..runner import Completed, Runner
from .host_os import HostOs, host_os
from .local import truenas_here
from .resolve import bench_system, joined_nas, lagg_system, mesh_system
from .truenas import INSIDE_MIDDLEWARED, TrueNASOpener, outside_truenas, through_middlewared

if TYPE_CHECKING:
    from ..backends.truenas import ProbeResult
    from ..mesh.systems import MeshSystem

NAS_COMMAND_TIMEOUT = 10.0


def run_here(argv: Sequence[str]) -> Completed:
    """argv on this machine (a failure is an answer, not an error): the NAS, when tengig runs on it."""
    return Runner().run(argv, timeout=NAS_COMMAND_TIMEOUT, check=False)


def ping_here(name: str, address: str) -> "Callable[[], ProbeResult]":
    """One ping to ``address`` through the new LAGG ``name``, from this machine."""
    from ..lagg.apply_truenas import ping_probe

    runner = Runner()
    return ping_probe(name, address, lambda argv: runner.run(argv, timeout=NAS_COMMAND_TIMEOUT, check=False))


@dataclass(frozen=True)
class Seams:
    bench_system: Callable[[str | None, str | None], Any] = bench_system
    lagg_system: Callable[[], Any] = lagg_system
    mesh_system: "Callable[[str, list[str]], MeshSystem]" = mesh_system
    joined_nas: Callable[[str, str | None], Any] = joined_nas
    run_on_nas: Callable[[Sequence[str]], Completed] = run_here
    lagg_probe: "Callable[[str, str], Callable[[], ProbeResult]]" = ping_here
    host_os: Callable[[], HostOs] = host_os
    truenas: TrueNASOpener = outside_truenas
    truenas_here: Callable[[], str | None] = truenas_here


DEFAULT_SEAMS = Seams()


def inside_middlewared(middleware: Any) -> Seams:
    """The seams of tengig's services when TrueNAS's middlewared hosts them (the plugin hands over its
    middleware object): system truenas is middlewared itself, and this machine is that TrueNAS."""
    return replace(DEFAULT_SEAMS, truenas=through_middlewared(middleware), truenas_here=lambda: INSIDE_MIDDLEWARED)
