"""What the machine tengig runs on is, measured here and said with its reason: TrueNAS SCALE or CORE
(its middlewared is installed), plain Linux or FreeBSD, and its imported ZFS pools (``zpool list``).

In a FreeBSD jail (TrueNAS CORE's tengig jail) the pool is measured on the dataset the host delegated to
the jail (iocage's ``jail_zfs``: ``zfs jail``, the dataset's ``jailed`` property set on it): the jail may
create datasets under that one only, so the scratch datasets go there (``scratch_parents``)."""
from __future__ import annotations

import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CommandError
from ..runner import Runner

if TYPE_CHECKING:
    from ..backends.freebsd.sysctl import SysctlSource

SCALE_MIDDLEWARED = Path("/usr/lib/python3/dist-packages/middlewared")
CORE_MIDDLEWARED_GLOB = "/usr/local/lib/python3*/site-packages/middlewared"
VERSION_FILE = Path("/etc/version")
JAILED = "security.jail.jailed"


@dataclass(frozen=True)
class LocalFacts:
    flavour: str                          # "truenas-scale" | "truenas-core" | "linux" | "freebsd" | other OS name
    reason: str                           # how that was found, for the user
    pools: tuple[str, ...] = ()
    pools_error: str | None = None        # why no pool list could be read (zpool missing, failed)
    extra: dict[str, str] = field(default_factory=dict)
    scratch_parents: tuple[str, ...] = ()  # a jail's delegated datasets: scratch datasets go under them
    mountpoints: dict[str, str] = field(default_factory=dict)  # the app's pools: where TrueNAS mounts each

    def scratch_parent(self, pool: str) -> str | None:
        """Where a scratch dataset of ``pool`` is made: under the dataset delegated to this jail, or (None)
        at the pool's root."""
        return next((d for d in self.scratch_parents if d.split("/")[0] == pool), None)

    @property
    def system(self) -> str:
        """What the machine said it is, in platform.system()'s words (systems/host_os.py picks its OS by it)."""
        return {"truenas-scale": "Linux", "truenas-app": "Linux", "linux": "Linux", "truenas-core": "FreeBSD", "freebsd": "FreeBSD"}.get(
            self.flavour, self.flavour)

    def describe(self) -> str:
        pools = ", ".join(self.pools) if self.pools else f"no ZFS pool ({self.pools_error or 'zpool list: none'})"
        delegated = (f"; scratch datasets under {', '.join(self.scratch_parents)} (delegated to this jail)"
                     if self.scratch_parents else "")
        return f"{self.flavour} ({self.reason}); pools: {pools}{delegated}"


def _version_text() -> str:
    try:
        return VERSION_FILE.read_text(errors="replace").strip()[:80]
    except OSError:
        return ""


def _flavour(system: str | None = None) -> tuple[str, str]:
    system = platform.system() if system is None else system
    version = _version_text()
    if system == "Linux" and SCALE_MIDDLEWARED.is_dir():
        return "truenas-scale", f"TrueNAS middlewared in {SCALE_MIDDLEWARED}" + (f", /etc/version {version}" if version else "")
    if system == "FreeBSD":
        found = sorted(Path("/").glob(CORE_MIDDLEWARED_GLOB.lstrip("/")))
        if found:
            return "truenas-core", f"TrueNAS middlewared in {found[0]}" + (f", /etc/version {version}" if version else "")
        return "freebsd", f"FreeBSD {platform.release()}, no TrueNAS middlewared"
    if system == "Linux":
        return "linux", f"Linux {platform.release()}, no TrueNAS middlewared"
    return system.lower() or "unknown", f"{system or 'an unknown OS'}: tengig measures NAS pools on Linux and FreeBSD"


def truenas_here() -> str | None:
    """Why this machine is a TrueNAS (its middlewared is installed), or None when it is not: on a TrueNAS
    its middlewared owns the network configuration, so tengig changes interfaces there only through it."""
    flavour, reason = _flavour()
    return f"this machine is TrueNAS ({reason})" if flavour.startswith("truenas") else None


def list_pools(runner: Runner) -> tuple[tuple[str, ...], str | None]:
    try:
        done = runner.run(["zpool", "list", "-H", "-o", "name"], timeout=30, check=False)
    except CommandError as exc:
        return (), str(exc)
    if done.returncode != 0:
        return (), (done.stderr.strip() or f"zpool list exited {done.returncode}").splitlines()[-1][:200]
    return tuple(line.strip() for line in done.stdout.splitlines() if line.strip()), None


def delegated_datasets(runner: Runner) -> tuple[str, ...]:
    """The datasets delegated to this jail: those whose ``jailed`` property is set on them (``zfs get``
    prints name, value and source, tab-separated). Only asked inside a jail: on a jail host the property
    marks other jails' datasets."""
    try:
        done = runner.run(["zfs", "get", "-H", "-o", "name,value,source", "jailed"], timeout=30, check=False)
    except CommandError:
        return ()
    rows = [line.split("\t") for line in done.stdout.splitlines()] if done.returncode == 0 else []
    return tuple(row[0] for row in rows if len(row) == 3 and row[1] == "on" and row[2] == "local")


def in_a_jail(sysctl: "SysctlSource") -> bool:
    """FreeBSD: security.jail.jailed is 1 inside a jail."""
    return sysctl.values(JAILED).get(JAILED) == 1


def this_machine(runner: Runner | None = None, *, system: str | None = None,
                 sysctl: "SysctlSource | None" = None) -> LocalFacts:
    """``system``: what the machine says it is (platform.system()'s words; default: ask it); ``sysctl``: a
    FreeBSD machine's sysctl tree (default: this kernel's, through the freebsd-sysctl seam). As TrueNAS's
    app, the NAS is what its API says instead (systems/app.py; systems/resolve.py asks it first)."""
    runner = runner or Runner()
    flavour, reason = _flavour(system)
    pools, error = list_pools(runner)
    parents: tuple[str, ...] = ()
    if flavour == "freebsd":
        from ..backends.freebsd.nics import default_sysctl

        if in_a_jail(sysctl if sysctl is not None else default_sysctl(runner)):
            parents = delegated_datasets(runner)
            reason += "; in a jail: " + (f"datasets delegated to it: {', '.join(parents)}" if parents else
                                        "no dataset is delegated to it (jail_zfs=1: plugin/iocage/README.md)")
    return LocalFacts(flavour=flavour, reason=reason, pools=pools, pools_error=error, scratch_parents=parents)
