"""Linux bonding on this host: can the kernel make a bond, and make one from a rendered plan.

The check only reads files (no modprobe, no ip link add): the bonding driver is there when
- it is loaded: /sys/class/net/bonding_masters, /sys/module/bonding, or a `bonding` line in /proc/modules;
- it is built in: drivers/net/bonding/bonding.ko in /lib/modules/$(uname -r)/modules.builtin;
- it can be loaded: a bonding.ko[.xz|.zst|.gz] line in /lib/modules/$(uname -r)/modules.dep.
A kernel with none of these cannot make a bond, whatever iproute2 says: apply refuses before
running anything and says that nothing was changed.
"""
from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ...errors import CommandError, TengigError
from ...runner import Runner

STEP_TIMEOUT_S = 15
_MODULE_PATH = re.compile(r"(^|/)drivers/net/bonding/bonding\.ko(\.(xz|zst|gz))?$")


class BondCommands(Protocol):
    """What apply_bond runs: a rendering's flavour, its commands and its undo (lagg.render.RenderedLagg)."""

    flavour: str
    commands: list[list[str]]
    undo: list[list[str]]


class BondUnsupported(TengigError):
    """This kernel has no bonding driver: nothing was (or can be) changed."""

    errno = errno.EOPNOTSUPP


class BondSupport(BaseModel):
    model_config = ConfigDict(frozen=True)

    supported: bool = Field(description="The kernel can make a bond now, or after loading the module.")
    how: Literal["loaded", "builtin", "module"] | None = Field(
        description="loaded: the driver is running; builtin: compiled in; module: loadable (modprobe bonding first).")
    kernel: str = Field(description="Kernel release (uname -r).")
    evidence: list[str] = Field(description="What was looked at and what it said, in check order.")

    def explain(self) -> str:
        return "; ".join(self.evidence)


def _listed(path: Path) -> bool | None:
    """Does the file list the bonding driver? None when the file cannot be read."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        first = line.split(":", 1)[0].strip() if path.name == "modules.dep" else line.split(" ", 1)[0].strip()
        if path.name == "modules" and first == "bonding":
            return True
        if _MODULE_PATH.search(first):
            return True
    return False


def bonding_support(root: Path | str = "/", kernel_release: str | None = None) -> BondSupport:
    """Whether this kernel can make a bond. `root` and `kernel_release` let tests point it at a fake tree."""
    root = Path(root)
    kernel = kernel_release or os.uname().release
    evidence: list[str] = []
    if (root / "sys/class/net/bonding_masters").exists():
        return BondSupport(supported=True, how="loaded", kernel=kernel,
                           evidence=["/sys/class/net/bonding_masters exists: the bonding driver is loaded"])
    evidence.append("no /sys/class/net/bonding_masters (the driver is not loaded)")
    if (root / "sys/module/bonding").is_dir():
        return BondSupport(supported=True, how="loaded", kernel=kernel,
                           evidence=evidence + ["/sys/module/bonding exists: the driver is in the kernel"])
    evidence.append("no /sys/module/bonding")
    loaded = _listed(root / "proc/modules")
    if loaded:
        return BondSupport(supported=True, how="loaded", kernel=kernel, evidence=evidence + ["/proc/modules lists bonding"])
    evidence.append("/proc/modules does not list bonding" if loaded is False
                    else "no /proc/modules (a kernel without loadable modules)")
    moddir = root / "lib/modules" / kernel
    if not moddir.is_dir():
        evidence.append(f"no /lib/modules/{kernel} (no modules installed for this kernel)")
        return BondSupport(supported=False, how=None, kernel=kernel, evidence=evidence)
    # Built in, then loadable: each file lists the driver, does not, or cannot be read.
    for name, how, driver, meaning in (("modules.builtin", "builtin", "bonding", ""),
                                       ("modules.dep", "module", "bonding.ko", ": loadable")):
        shown = f"/lib/modules/{kernel}/{name}"
        listed = _listed(moddir / name)
        if listed:
            return BondSupport(supported=True, how=how, kernel=kernel,
                               evidence=evidence + [f"{shown} lists {driver}{meaning}"])
        evidence.append(f"{shown} does not list {driver}" if listed is False else f"no {shown}")
    return BondSupport(supported=False, how=None, kernel=kernel, evidence=evidence)


def require_bonding(support: BondSupport) -> None:
    if not support.supported:
        raise BondUnsupported(
            f"this kernel has no bonding driver ({support.kernel}: {support.explain()}); nothing was changed. "
            "Use a kernel built with CONFIG_BONDING (most distribution kernels have it as a module)")


def apply_bond(rendered: BondCommands, runner: Runner, *, support: BondSupport | None = None) -> list[list[str]]:
    """Run the rendered iproute2 commands in order; returns what ran. Refuses first when the kernel has
    no bonding driver. When a step fails, the undo list runs (its own failures ignored: some parts were
    never done) and the step's error is raised."""
    if rendered.flavour != "iproute2":
        raise ValueError(f"apply_bond takes an iproute2 rendering, not {rendered.flavour}")
    support = support or bonding_support()
    require_bonding(support)
    steps = ([["modprobe", "bonding"]] if support.how == "module" else []) + rendered.commands
    done: list[list[str]] = []
    for argv in steps:
        try:
            runner.run(argv, timeout=STEP_TIMEOUT_S)
        except CommandError:
            for undo in rendered.undo:
                try:
                    runner.run(undo, timeout=STEP_TIMEOUT_S, check=False)
                except CommandError:
                    pass
            raise
        done.append(argv)
    return done
