"""The lab's state file: what `up` created so far, written after every step so that `down`
can undo a lab that crashed half-way (together with the name-prefix scan in residue.py)."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from .spec import LabSpec

MARKER_ENV = "TENGIG_LAB"  # set on every process the lab starts: found again by /proc/PID/environ


class LabState(BaseModel):
    version: Literal[1] = 1
    phase: Literal["building", "up", "failed"] = "building"
    spec: LabSpec
    created: float = Field(default_factory=time.time)
    pids: dict[str, int] = Field(default_factory=dict, description="process role -> PID (zfs-fuse, smbd, ...)")
    loop_devices: list[str] = Field(default_factory=list, description="--slow-pool's loop devices, members last.")
    cgroup: str | None = None
    pool: str | None = None
    share_path: str | None = None
    error: str | None = None


def save(state: LabState, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # holds the lab's SMB password
    with os.fdopen(fd, "w") as fh:
        fh.write(state.model_dump_json(indent=2))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def load(path: Path) -> LabState | None:
    try:
        return LabState.model_validate(json.loads(path.read_text()))
    except FileNotFoundError:
        return None
    except (ValueError, OSError):
        return None  # a torn or foreign file: down falls back to the prefix scan
