"""Which of the machine's labs this process builds and uses.

A user has one lab per machine (instance 1: the names in docs/lab.md). The test suite runs a second one beside
it (TENGIG_LAB_INSTANCE=2) to halve its wait on shaped links and TrueNAS's timers. Instance 2 keeps the same
host, namespace and pool names, so it must run in a mount namespace of its own where /run/netns, /etc/netns and
zfs-fuse's socket, lock and cache directories are its own (tests/second_lab.sh sets that up). What the two share
on the machine is told apart by the instance: its directories, its cgroup and the value of the marker every
lab process carries.
"""
from __future__ import annotations

import os
import re

from ..errors import LabError

INSTANCE_ENV = "TENGIG_LAB_INSTANCE"
FIRST = "1"
# Made fresh for a second lab: its hosts' namespaces and hosts files, zfs-fuse's socket, lock and pool cache.
OWN_MOUNTS = ("/run/netns", "/etc/netns", "/run/zfs", "/run/lock/zfs", "/var/lib/zfs")


def instance() -> str:
    """This process's lab instance: "1" unless TENGIG_LAB_INSTANCE names another (a digit 1-9)."""
    value = os.environ.get(INSTANCE_ENV, FIRST)
    if not re.fullmatch(r"[1-9]", value):
        raise LabError(f"{INSTANCE_ENV}={value!r}: a lab instance is one digit, 1 to 9 (unset it for the machine's "
                       "own lab)")
    return value


def suffix() -> str:
    """What instance-scoped names end with: nothing for the first lab, "-2" for the second."""
    value = instance()
    return "" if value == FIRST else f"-{value}"


def cgroup_name() -> str:
    """The blkio cgroup holding this lab's zfs-fuse when its pool is throttled."""
    return "tengig-lab" + suffix()


def require_own_mounts(mounts_file: str = "/proc/self/mounts") -> None:
    """Instance 2 and later share the first lab's names for namespaces and zfs-fuse's socket: they are told
    apart only by mount namespace. Refuse to act unless each of OWN_MOUNTS is a fresh tmpfs here (as
    tests/second_lab.sh mounts them), so a second lab never builds over, or tears down, the machine's first."""
    if instance() == FIRST:
        return
    with open(mounts_file) as fh:
        fstypes = {fields[1]: fields[2] for fields in (line.split() for line in fh) if len(fields) > 2}
    missing = [d for d in OWN_MOUNTS if fstypes.get(d) != "tmpfs"]
    if missing:
        raise LabError(f"lab instance {instance()} needs its own mount namespace with a fresh {', '.join(missing)}: "
                       f"run it through tests/second_lab.sh, or unset {INSTANCE_ENV} for the machine's own lab")
