"""Where tengig acts, decided in one place: ``local`` (tengig runs on the NAS itself: TrueNAS SCALE or
CORE, or plain Linux or FreeBSD with a ZFS pool), ``truenas`` (a TrueNAS reached over its API) or
``lab`` (the embedded lab, only when named). ``machine_facts()`` says what the local machine is and
why (as TrueNAS's app: what the NAS's API says; else ``this_machine()``, the machine itself); ``resolve.bench_system()`` turns a request's ``system`` into the BenchSystem the benchmarks
measure, ``resolve.mesh_system()`` the MeshSystem a mesh is applied on. ``Seams`` bundles these (and
running a program where the NAS is) for the services; their host passes it in. Nothing chooses the
lab silently: with nothing usable, the error says how to choose."""
from .local import LocalFacts, this_machine
from .resolve import SYSTEMS, SystemName, bench_system, describe_systems, machine_facts, mesh_system
from .seams import DEFAULT_SEAMS, Seams

__all__ = ["DEFAULT_SEAMS", "LocalFacts", "SYSTEMS", "Seams", "SystemName", "bench_system", "describe_systems",
           "machine_facts", "mesh_system", "this_machine"]
