"""What a lab should look like: hosts, cables and their speeds, MTU, pool and share (pure).

The default is seed 000's trio: nas, desk and lab, a full mesh of direct cables, 10 Gb/s each.
"""
from __future__ import annotations

from itertools import combinations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from ..errors import ValidationError
from ..units import GiB, parse_rate

DEFAULT_HOSTS = ("nas", "desk", "lab")
DEFAULT_RATE = 10 * 10**9
RATE_PRESETS = {"100m": 100 * 10**6, "1g": 10**9, "2.5g": 2_500_000_000, "10g": 10 * 10**9}


class LabSpec(BaseModel):
    """Inputs of `tengig lab up`. Link keys are canonical: the two host names sorted, joined by '-'."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hosts: tuple[str, ...] = Field(DEFAULT_HOSTS, description="Host names; the first one is the NAS.")
    links: dict[str, int | None] = Field(
        default_factory=dict,
        description="Line rate per link in bits/s (None: unshaped veth). Missing links get 10 Gb/s.",
    )
    mtu: int = Field(1500, ge=1280, le=9000, description="MTU of every cable, bytes.")
    bare: bool = Field(False, description="Hosts and cables only: no addresses, hosts entries, pool or share.")
    pool_size: int = Field(8 * GiB, ge=256 * 2**20, description="Sparse pool file size, bytes.")
    slow_pool_mbps: float | None = Field(
        None, gt=0, description="Throttle the pool's device to this many MB/s (10^6 bytes/s) read and write."
    )
    pool_members: int = Field(1, ge=1, le=4, description="Disks (sparse files) the pool stripes across, each "
                              "pool_size / pool_members bytes.")
    slow_members: int | None = Field(None, ge=1, le=4, description="With slow_pool_mbps: throttle only the first "
                                     "this many members (None: all of them).")

    @field_validator("slow_members")
    @classmethod
    def _slow_members_fit(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None:
            if not info.data.get("slow_pool_mbps"):
                raise ValueError("needs slow_pool_mbps (the throttle it applies): give both")
            members = info.data.get("pool_members", 1)
            if value > members:
                raise ValueError(f"{value} is more than the pool's {members} member(s): raise pool_members")
        return value

    @property
    def throttled_members(self) -> int:
        """How many of the pool's members the throttle slows (the first ones)."""
        if not self.slow_pool_mbps:
            return 0
        return self.slow_members if self.slow_members is not None else self.pool_members
    arc_mib: int = Field(100, ge=16, le=16384, description="zfs-fuse ARC size, MiB.")
    smb_user: str = Field("tgsmb", description="Unix and SMB user that owns the share.")
    smb_password: str = Field("tengig-lab", description="SMB password of smb_user (lab only).")

    @property
    def nas(self) -> str:
        return self.hosts[0]

    def rate(self, link: str) -> int | None:
        return self.links.get(link, DEFAULT_RATE)


def link_key(a: str, b: str) -> str:
    return "-".join(sorted((a, b)))


def all_links(hosts: tuple[str, ...]) -> list[tuple[str, str]]:
    """Every host pair once, as (a, b) with a < b: the full mesh of direct cables."""
    return sorted(tuple(sorted(pair)) for pair in combinations(hosts, 2))  # type: ignore[misc]


def parse_link_option(text: str, hosts: tuple[str, ...] = DEFAULT_HOSTS) -> tuple[str, int | None]:
    """'desk-nas=1g' -> ('desk-nas', 1_000_000_000); 'nas-lab=unshaped' -> ('lab-nas', None)."""
    field = f"link {text!r}"
    pair, sep, rate_text = str(text).partition("=")
    if not sep or "-" not in pair:
        raise ValidationError.one(field, "write HOST-HOST=RATE, e.g. desk-nas=1g (rates: 100m, 1g, 2.5g, 10g, or unshaped)")
    a, _, b = pair.strip().partition("-")
    for name in (a, b):
        if name not in hosts:
            raise ValidationError.one(field, f"unknown host {name!r}; the lab's hosts are {', '.join(hosts)}")
    if a == b:
        raise ValidationError.one(field, "a cable joins two different hosts")
    rate_text = rate_text.strip().lower()
    rate = None if rate_text in ("unshaped", "none", "off") else parse_rate(rate_text, field=field)
    return link_key(a, b), rate


def build_spec(link_options: list[str] | tuple[str, ...] = (), **kwargs) -> LabSpec:
    """LabSpec from CLI-style options; raises ValidationError naming the bad option."""
    hosts = tuple(kwargs.pop("hosts", DEFAULT_HOSTS))
    links: dict[str, int | None] = {}
    for opt in link_options:
        key, rate = parse_link_option(opt, hosts)
        if key in links:
            raise ValidationError.one(f"link {opt!r}", f"link {key} is given twice")
        links[key] = rate
    try:
        return LabSpec(hosts=hosts, links=links, **kwargs)
    except Exception as exc:  # pydantic's error -> our field-path error
        from pydantic import ValidationError as PydanticError

        if isinstance(exc, PydanticError):
            raise ValidationError.from_pydantic(exc) from exc
        raise
