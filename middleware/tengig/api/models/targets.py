"""tengig.targets: the reference disks a NAS is judged against (built-in, with sources, and the user's)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import ApiInput, ApiOutput

TARGET_NAME_PATTERN = r"^[a-z0-9][a-z0-9-]{0,39}$"


class TenGigTargetsEntry(ApiOutput):
    name: str = Field(description="Catalogue key, e.g. 'hdd-15k-best'.")
    title: str = Field(description="Human name.")
    read_bytes_per_s: float = Field(description="Sequential read, bytes/s (MB/s x 10^6).")
    write_bytes_per_s: float | None = Field(description="Sequential write, bytes/s; null if the source gives none.")
    source: str = Field(description="Where the figure comes from (review, datasheet, vendor spec).")
    builtin: bool = Field(description="Shipped with tengig (false: added by the user).")


class TenGigTargetsQueryArgs(ApiInput):
    pass


class TenGigTargetsQueryResult(ApiOutput):
    result: list[TenGigTargetsEntry] = Field(description="Built-in targets first (the default first), then the user's.")


class TenGigTargetsCreateTarget(ApiInput):
    name: str = Field(pattern=TARGET_NAME_PATTERN, description="New key: lower case, digits and '-', up to 40.")
    title: str = Field(min_length=1, description="Human name, e.g. 'My old RAID 10'.")
    read_bytes_per_s: float = Field(gt=0, description="Sequential read to beat, bytes/s.")
    write_bytes_per_s: float | None = Field(None, gt=0, description="Sequential write to beat, bytes/s.")
    source: str = Field(min_length=1, description="Where the figure comes from.")


class TenGigTargetsCreateArgs(ApiInput):
    target: TenGigTargetsCreateTarget = Field(description="The target to add.")


class TenGigTargetsCreateResult(ApiOutput):
    result: TenGigTargetsEntry = Field(description="The target as stored.")


class TenGigTargetsDeleteArgs(ApiInput):
    name: str = Field(description="Name of a user target (built-ins cannot be deleted).")


class TenGigTargetsDeleteResult(ApiOutput):
    result: Literal[True] = Field(description="true once it is gone.")
