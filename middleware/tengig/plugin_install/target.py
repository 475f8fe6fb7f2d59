"""The TrueNAS an installer acts on: where middlewared's Python, plugins and site packages are, how
to restart it and how to ask it what it serves. ``detect_target()`` finds the TrueNAS tengig runs
on; tests build a ``Target`` for real middlewared started from source.

SCALE (25.04+): middlewared imports every ``*.py`` of its own ``middlewared/plugins/`` directory
with no try/except; ``/usr`` is read-only unless developer mode is on; an update boots a new
environment without anything copied there. CORE 13.x: no ``middlewared.api``, so the plugin cannot
host tengig's methods there (it declines); tengig runs beside CORE as a jail or ``tengig serve``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import CommandError, TengigError
from ..runner import Runner

SCALE_PYTHON = Path("/usr/bin/python3")
SCALE_MIDCLT = ("midclt",)
SCALE_RESTART = ("systemctl", "restart", "middlewared")
SCALE_LIB_DIR = Path("/usr/local/lib/tengig")
DEVELOPER_MODE_HINT = ("switch developer mode on first (`install-dev-tools` or "
                       "/usr/local/libexec/disable-rootfs-protection): it makes /usr writable, is unsupported by "
                       "iXsystems, and an update drops the plugin again (reinstall after each update)")

# Run by middlewared's own interpreter: where its plugins and site packages are.
_PROBE = """
import json, sys, sysconfig
out = {"python": sys.version.split()[0], "purelib": sysconfig.get_paths()["purelib"]}
try:
    import middlewared.plugins
    out["plugins_dir"] = list(middlewared.plugins.__path__)[0]
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
try:
    import middlewared.api  # noqa: F401  (25.04+)
    out["api"] = True
except Exception:
    out["api"] = False
print(json.dumps(out))
"""


class InstallError(TengigError):
    """The plugin could not be installed, checked or removed; the message says what was done."""


@dataclass(frozen=True)
class Target:
    python: Path                  # middlewared's interpreter
    plugins_dir: Path             # middlewared/plugins (the live plugins directory)
    site_dir: Path                # that interpreter's site packages: tengig.pth goes here
    lib_dir: Path                 # tengig's own copy and the installer's records
    restart: tuple[str, ...]      # restarts middlewared
    midclt: tuple[str, ...]       # the official client, pointed at this middlewared as root
    has_api: bool                 # middlewared.api exists (SCALE 25.04+)

    @property
    def plugin_file(self) -> Path:
        return self.plugins_dir / "tengig_plugin.py"

    @property
    def pth_file(self) -> Path:
        return self.site_dir / "tengig.pth"

    @property
    def record_file(self) -> Path:
        return self.lib_dir / "installed.json"


def probe(python: Path, runner: Runner) -> dict:
    """Ask ``python`` (middlewared's interpreter) where its plugins and site packages are."""
    try:
        done = runner.run([str(python), "-c", _PROBE], timeout=60)
        return json.loads(done.stdout)
    except (CommandError, ValueError) as exc:
        raise InstallError(f"could not ask {python} about middlewared ({exc}); nothing was changed") from exc


def detect_target(runner: Runner | None = None) -> Target:
    """The TrueNAS this machine is, or InstallError saying why it is not one."""
    runner = runner or Runner()
    if not SCALE_PYTHON.exists():
        raise InstallError("this machine is not a TrueNAS (no /usr/bin/python3 with middlewared); nothing was "
                           "changed. On plain Linux run `tengig serve` instead")
    facts = probe(SCALE_PYTHON, runner)
    if "plugins_dir" not in facts:
        raise InstallError(f"this machine is not a TrueNAS: {SCALE_PYTHON} cannot import middlewared "
                           f"({facts.get('error', 'unknown')}); nothing was changed. On plain Linux run "
                           "`tengig serve` instead")
    return Target(python=SCALE_PYTHON, plugins_dir=Path(facts["plugins_dir"]), site_dir=Path(facts["purelib"]),
                  lib_dir=SCALE_LIB_DIR, restart=SCALE_RESTART, midclt=SCALE_MIDCLT, has_api=bool(facts["api"]))


def read_only(path: Path) -> bool:
    """True when ``path`` is on a read-only mount (SCALE's /usr without developer mode)."""
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
