"""Where the lab keeps its files. Volatile state under /run, the pool image on disk under /var/lib."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .instance import suffix


def _default(env: str, base: str) -> Path:
    return Path(os.environ.get(env) or base + suffix())


@dataclass(frozen=True)
class LabPaths:
    # The second lab (TENGIG_LAB_INSTANCE=2, tengig/lab/instance.py) keeps its files beside the first's: lab-2.
    run: Path = field(default_factory=lambda: _default("TENGIG_LAB_RUN", "/run/tengig/lab"))
    data: Path = field(default_factory=lambda: _default("TENGIG_LAB_DATA", "/var/lib/tengig/lab"))
    netns_etc: Path = Path("/etc/netns")

    @property
    def state_file(self) -> Path:
        return self.run / "state.json"

    @property
    def logs(self) -> Path:
        return self.run / "log"

    @property
    def mnt(self) -> Path:
        return self.run / "mnt"

    @property
    def samba(self) -> Path:
        return self.run / "samba"

    @property
    def pool_image(self) -> Path:
        return self.data / "pool.img"

    def netns_etc_dir(self, netns: str) -> Path:
        return self.netns_etc / netns
