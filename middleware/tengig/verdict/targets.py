"""The reference disks a NAS over SMB is judged against (docs/physics.md §5), and the user's own.

A verdict is only as honest as its target: every built-in carries the source of its figure, so a
user can see why "223.4 MB/s" and not a rounder number. MB = 10^6 bytes throughout, the unit disk
vendors and reviews use. User targets are validated like any API input (field paths in the error)
and may not shadow a built-in name, so 'hdd-15k-best' always means the same disk in every report.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pydantic

from ..errors import ValidationError
from ..units import MB
from .models import Target

DEFAULT_TARGET = "hdd-15k-best"

# Built once, copied on the way out: callers may mutate what they get without touching the catalogue.
_BUILTINS: tuple[Target, ...] = (
    Target(
        name="hdd-15k-best",
        title="15k rpm enterprise HDD, best of a 2016 review",
        read_bytes_per_s=223.4 * MB,
        write_bytes_per_s=None,
        source="Tom's Hardware 2016 15k rpm enterprise HDD review, best sequential read (the seed's goal figure)",
    ),
    Target(
        name="hdd-15k-outer",
        title='15k rpm 3.5" HDD (Cheetah 15K.7 class), outer tracks (inner tracks: 122 MB/s)',
        read_bytes_per_s=204 * MB,
        write_bytes_per_s=204 * MB,
        source="Seagate Cheetah 15K.7 product manual, sustained transfer rate 122 (ID) to 204 (OD) MB/s, "
        "one figure for reads and writes",
    ),
    Target(
        name="hdd-15k-inner",
        title='15k rpm 3.5" HDD (Cheetah 15K.7 class), inner tracks (outer tracks: 204 MB/s)',
        read_bytes_per_s=122 * MB,
        write_bytes_per_s=122 * MB,
        source="Seagate Cheetah 15K.7 product manual, sustained transfer rate 122 (ID) to 204 (OD) MB/s, "
        "one figure for reads and writes",
    ),
    Target(
        name="hdd-7200-exos-x18",
        title='7200 rpm 3.5" HDD (Seagate Exos X18), outer tracks',
        read_bytes_per_s=270 * MB,
        write_bytes_per_s=270 * MB,
        source="Seagate Exos X18 datasheet, max sustained transfer rate (OD) 270 MB/s, one figure for reads and writes",
    ),
    Target(
        name="ssd-sata-870-evo",
        title="SATA SSD (Samsung 870 EVO)",
        read_bytes_per_s=560 * MB,
        write_bytes_per_s=530 * MB,
        source="Samsung 870 EVO vendor specification, sequential read 560 MB/s, sequential write 530 MB/s",
    ),
    Target(
        name="nvme-pcie4-990-pro",
        title="NVMe PCIe 4.0 SSD (Samsung 990 PRO)",
        read_bytes_per_s=7450 * MB,
        write_bytes_per_s=6900 * MB,
        source="Samsung 990 PRO vendor specification (2 TB), sequential read 7450 MB/s, sequential write 6900 MB/s",
    ),
)


def builtin_targets() -> list[Target]:
    """The catalogue shipped with tengig: the default first, then HDDs, the SATA SSD, the NVMe SSD."""
    return [t.model_copy() for t in _BUILTINS]


def _known_names(user_targets: Iterable[Target]) -> list[str]:
    return [t.name for t in _BUILTINS] + [t.name for t in user_targets]


def find_target(name: str, user_targets: Iterable[Target] = ()) -> Target:
    """The target called ``name``: built-ins first (a user target can never shadow one), then the user's.

    Raises ValidationError on field 'target' naming every known target, so a typo is one retry away.
    """
    users = list(user_targets)
    for target in (*_BUILTINS, *users):
        if target.name == name:
            return target.model_copy()
    raise ValidationError.one("target", f"unknown target {name!r}; known: {', '.join(_known_names(users))}")


def validate_user_target(data: Mapping[str, Any], existing: Iterable[Target] = ()) -> Target:
    """A user's own target from API/CLI input, with errors that name the field ('target.read_bytes_per_s').

    Refuses a name already used by a built-in or by one of ``existing`` (the user's other targets),
    and refuses ``builtin: true``: only the catalogue above is built in.
    """
    if not isinstance(data, Mapping):
        kind = type(data).__name__
        raise ValidationError.one("target", f"expected an object with name, title, read_bytes_per_s, source; got {kind}")
    if "builtin" in data and data["builtin"] is not False:
        raise ValidationError.one(
            "target.builtin", "a user target cannot be built in; leave 'builtin' out or set it to false"
        )
    try:
        target = Target.model_validate({**data, "builtin": False})
    except pydantic.ValidationError as exc:
        errors = [
            ("target." + ".".join(str(part) for part in err["loc"]) if err["loc"] else "target", err["msg"])
            for err in exc.errors()
        ]
        raise ValidationError(errors) from exc
    if any(t.name == target.name for t in _BUILTINS):
        builtins = ", ".join(t.name for t in _BUILTINS)
        raise ValidationError.one(
            "target.name", f"{target.name!r} is a built-in target; choose another name (built-ins: {builtins})"
        )
    if any(t.name == target.name for t in existing):
        raise ValidationError.one(
            "target.name", f"a user target named {target.name!r} already exists; choose another name or remove it first"
        )
    return target
