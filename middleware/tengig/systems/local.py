"""What the machine tengig runs on is, measured here and said with its reason: TrueNAS SCALE or CORE
(its middlewared is installed), plain Linux or FreeBSD, and its imported ZFS pools (``zpool list``)."""
from __future__ import annotations

import platform
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CommandError
from ..runner import Runner

SCALE_MIDDLEWARED = Path("/usr/lib/python3/dist-packages/middlewared")
CORE_MIDDLEWARED_GLOB = "/usr/local/lib/python3*/site-packages/middlewared"
VERSION_FILE = Path("/etc/version")


@dataclass(frozen=True)
class LocalFacts:
    flavour: str                          # "truenas-scale" | "truenas-core" | "linux" | "freebsd" | other OS name
    reason: str                           # how that was found, for the user
    pools: tuple[str, ...] = ()
    pools_error: str | None = None        # why no pool list could be read (zpool missing, failed)
    extra: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        pools = ", ".join(self.pools) if self.pools else f"no ZFS pool ({self.pools_error or 'zpool list: none'})"
        return f"{self.flavour} ({self.reason}); pools: {pools}"


def _version_text() -> str:
    try:
        return VERSION_FILE.read_text(errors="replace").strip()[:80]
    except OSError:
        return ""


def _flavour() -> tuple[str, str]:
    system = platform.system()
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


def this_machine(runner: Runner | None = None) -> LocalFacts:
    flavour, reason = _flavour()
    pools, error = list_pools(runner or Runner())
    return LocalFacts(flavour=flavour, reason=reason, pools=pools, pools_error=error)
