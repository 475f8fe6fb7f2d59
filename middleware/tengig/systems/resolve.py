"""The one place that turns a request's ``system`` into something to act on. Every service and the
CLI call it; nothing else picks a system. ``None`` means "this machine, if it is a NAS": never the lab.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..errors import ValidationError
from ..runner import Runner
from .app import app_facts, in_app
from .local import LocalFacts, this_machine

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..backends.host_os import HostOs
    from ..mesh.systems import MeshSystem
    from ..nic import Nic
    from .truenas import TrueNASOpener

SystemName = Literal["local", "truenas", "lab"]
SYSTEMS: tuple[str, ...] = ("local", "truenas", "lab")
HOW_TO_CHOOSE = ('choose one: `system: "lab"` after `tengig lab up` (the embedded lab), `system: "local"` with '
                 "`pool: NAME` on a NAS with a ZFS pool, or run tengig on the NAS itself")
LAB_OFFER = 'none was named, and the lab is up: `system: "lab"` measures the lab and its desktops instead'
DESKTOP_FIELDS = ("join", "clients", "kind")  # what a request without desktops on this machine is refused on


def machine_facts(runner: Runner | None = None) -> LocalFacts:
    """What this machine is: as TrueNAS's app, what the NAS's API says (systems/app.py); else the machine itself."""
    return app_facts() if in_app() else this_machine(runner)


def _lab_state() -> str:
    from ..lab import Lab

    try:
        state = Lab().require_up()
    except Exception as exc:  # any reason the lab is not usable is said, not raised
        return f"not up ({exc})"
    return "up: " + ", ".join(state.spec.hosts)


def offer_the_lab(exc: ValidationError) -> ValidationError:
    """A request that named no system and was refused for having no desktops here may have meant the lab:
    when it is up, the refusal says so too (under ``system``)."""
    if not any(field.split(".")[-1] in DESKTOP_FIELDS for field, _ in exc.errors) or not lab_is_up():
        return exc
    return ValidationError([*exc.errors, ("system", LAB_OFFER)])


def lab_is_up() -> bool:
    return _lab_state().startswith("up")


def describe_systems(runner: Runner | None = None) -> list[dict[str, str | bool]]:
    """Each system with whether it can be measured now and why (for the panel and `tengig bench systems`)."""
    facts = machine_facts(runner)
    lab = _lab_state()
    return [
        {"name": "local", "usable": bool(facts.pools), "reason": facts.describe()},
        {"name": "truenas", "usable": False,
         "reason": ("tengig runs as this TrueNAS's app: it is measured as system local, through its API"
                    if facts.flavour == "truenas-app" else
                    "benchmarks of a TrueNAS over its API need tengig on the NAS (system local) or as its app")},
        {"name": "lab", "usable": lab.startswith("up"), "reason": f"the embedded lab is {lab}"},
    ]


def _local(facts: LocalFacts, pool: str | None, named: bool):
    from .local_bench import LocalBenchSystem

    if not facts.pools:
        lead = ("system 'local': this machine" if named else
                "no system was named, and this machine")
        raise ValidationError.one("system", f"{lead} ({facts.flavour}: {facts.reason}) has no ZFS pool to measure "
                                  f"({facts.pools_error or 'zpool list shows none'}); {HOW_TO_CHOOSE}")
    if pool is None:
        if len(facts.pools) > 1:
            raise ValidationError.one("pool", f"this machine has {len(facts.pools)} pools ({', '.join(facts.pools)}); "
                                      "name the one to measure (`pool: NAME`)")
        pool = facts.pools[0]
    elif pool not in facts.pools:
        raise ValidationError.one("pool", f"{pool!r} is not a pool of this machine; its pools: {', '.join(facts.pools)}")
    return LocalBenchSystem(facts, pool)


def bench_system(system: str | None, pool: str | None = None, *, runner: Runner | None = None):
    """The BenchSystem for ``system`` (None: this machine if it has a pool). Raises ValidationError on
    ``system`` or ``pool`` saying how to choose."""
    if system == "lab":
        from ..lab import Lab
        from ..lab.nas_run import LabNas

        lab_system = LabNas(Lab())
        if pool not in (None, lab_system.pool):
            raise ValidationError.one("pool", f"{pool!r} is not the lab's pool; use {lab_system.pool!r}")
        return lab_system
    if system == "truenas":
        raise ValidationError.one("system", "benchmarks of a TrueNAS over its API need tengig on the NAS: install "
                                  "it there (tengig plugin install, or the app) and use `system: \"local\"` there")
    if system not in (None, "local"):
        raise ValidationError.one("system", f"{system!r} is not a system; use one of {', '.join(SYSTEMS)}")
    return _local(machine_facts(runner), pool, named=system == "local")


def lagg_system(system: str = "lab"):
    """Where tengig.lagg.verify measures a LAGG from: the lab (its desktops are the one far end tengig can
    drive); a user's NAS gives its measurements to tengig.lagg.analyse instead."""
    if system != "lab":
        raise ValidationError.one("system", "a LAGG is verified on the lab (tengig lab up); on your NAS, measure "
                                  "from a desktop and give the numbers to tengig.lagg.analyse")
    from ..lab import Lab
    from ..lab.lagg_adapter import LabLaggSystem

    return LabLaggSystem(Lab())


def joined_nas(system: str, truenas_reason: str | None):
    """Where a LAGG or mesh verify that desktops join runs its own programs (the iperf3 servers, the port
    counters): this machine, the NAS, as (its name, bench Hosts). System local; system truenas where this
    machine is that TrueNAS (``truenas_reason`` says why; the plugin, the app). Raises ValidationError
    ``system`` elsewhere, saying where to run it."""
    if system == "lab":
        raise ValidationError.one("system", "desktops join the NAS tengig runs on: on the lab, that is tengig serve on "
                                  "its nas with system 'local'; or leave join out and the lab drives both ends itself")
    if system == "truenas" and not truenas_reason:
        raise ValidationError.one("system", "the iperf3 servers and the member counters are the TrueNAS's own: run "
                                  "tengig on it (tengig plugin install, or the app) and verify there with system "
                                  "'local'")
    if system not in ("local", "truenas"):
        raise ValidationError.one("system", f"{system!r} is not a system; use one of {', '.join(SYSTEMS)}")
    from .local_bench import LocalHosts, nas_name

    name = nas_name()
    return name, LocalHosts(name)


def mesh_system(system: str, hosts: list[str]) -> "MeshSystem":
    """The MeshSystem a mesh is applied on and verified from: the lab (only when named), or this machine
    as the one plan host ``hosts`` names."""
    if system == "lab":
        from ..lab.mesh_adapter import LabMeshSystem

        return LabMeshSystem()
    from ..mesh.systems import LocalMeshSystem

    if len(hosts) != 1:
        raise ValidationError.one("options.hosts", "with system 'local', name the one plan host this machine is")
    return LocalMeshSystem(hosts[0])


def refuse_iproute2_on_truenas(truenas_reason: str | None, *, field: str, instead: str) -> None:
    """On a TrueNAS (``truenas_reason`` says why it is one), a change of its interfaces made with
    iproute2 is refused: TrueNAS keeps its network configuration in its database and applies it with
    its own code, so its UI would show one thing, the kernel hold another, and its next interface.sync
    (or a reboot) undo tengig's change. ``instead`` names the way through TrueNAS (API: system: truenas)."""
    if truenas_reason:
        raise ValidationError.one(field, f"{truenas_reason}: TrueNAS owns its network configuration, and a change "
                                  "made here with iproute2 behind its back would be undone by its next "
                                  f"interface.sync or reboot; apply through TrueNAS instead: {instead}")


def nics(system: str, host: str | None, truenas: "TrueNASOpener", host_os: "Callable[[], HostOs]") -> "list[Nic]":
    """The ports of ``system``: a lab host (``host``, default its NAS), this machine (its OS's own tools:
    ``host_os``, Linux's or FreeBSD's; the SSH session's port marked), or the TrueNAS ``truenas`` opens
    (interface.query)."""
    if system == "lab":
        from ..lab import Lab
        from ..lab.nics import lab_nics

        lab = Lab()
        spec = lab.require_up().spec
        host = host or spec.nas
        if host not in spec.hosts:
            raise ValidationError.one("host", f"{host!r} is not a lab host ({', '.join(spec.hosts)})")
        return lab_nics(lab, host)
    if host:
        raise ValidationError.one("host", f"only with system 'lab': '{system}' is one machine")
    if system == "truenas":
        with truenas() as backend:
            return backend.nics()
    if system != "local":
        raise ValidationError.one("system", f"{system!r} is not a system; use one of {', '.join(SYSTEMS)}")
    import os

    return host_os().nics(os.environ.get("SSH_CONNECTION"))
