"""Which TrueNAS answers, from ``system.version``, and what that means for the calls we make.

``system.version`` is middlewared's ``sw_info()['fullname']`` (checked in truenas/middleware):
  - SCALE 22.12 - 24.10: ``f"TrueNAS-SCALE-{version}"``        e.g. TrueNAS-SCALE-24.10.2.4
  - 25.04 and later:     ``f"TrueNAS-{version}"`` (no "SCALE") e.g. TrueNAS-25.04.2.6, TrueNAS-25.10.1
  - CORE 13.x:           the manifest version itself           e.g. TrueNAS-13.3-U1.2, TrueNAS-13.0-U6.1
Pre-releases carry a suffix (TrueNAS-25.10-BETA.1, TrueNAS-SCALE-24.10-RC.2); it is kept in ``text`` and
ignored for the feature flags. SCALE's year.month releases start at 20.x; CORE's at 12/13, so the first
number tells them apart when "SCALE" is absent.
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...errors import ValidationError

_SCALE_NAMED = re.compile(r"^TrueNAS-SCALE-(?P<release>\d+\.\d+(?:\.\d+)*)(?:-(?P<suffix>.+))?$")
_BARE = re.compile(r"^TrueNAS-(?P<release>\d+\.\d+(?:\.\d+)*)(?:-(?P<suffix>.+))?$")
_CORE_UPDATE = re.compile(r"^U(?P<update>\d+)(?:\.(?P<patch>\d+))?")
FIRST_SCALE_MAJOR = 20  # CORE is 12.x/13.x; SCALE releases are years (22.12, 24.10, 25.04...)

SCALE_LAG_PROTOCOLS = ("LACP", "FAILOVER", "LOADBALANCE")
CORE_LAG_PROTOCOLS = ("LACP", "FAILOVER", "LOADBALANCE", "ROUNDROBIN", "NONE")


class TrueNASVersion(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str = Field(description="system.version as TrueNAS answered it.")
    platform: Literal["SCALE", "CORE"] = Field(description="SCALE (Linux) or CORE (FreeBSD).")
    release: tuple[int, ...] = Field(description="Numeric release: (24, 10, 2, 4); CORE 13.3-U1.2 is (13, 3, 1, 2).")
    prerelease: str | None = Field(description="BETA.1, RC.2, MASTER-...: null for a release.")
    protocol: Literal["jsonrpc", "legacy"] = Field(
        description="jsonrpc: JSON-RPC 2.0 at /api/current (25.04+); legacy: /websocket (24.10 and older, CORE).")
    hosts_as_list: bool = Field(
        description="network.configuration hosts is a list of lines (SCALE 23.10+), else one multi-line string.")
    smb_readonly_field: Literal["ro", "readonly"] = Field(
        description="sharing.smb field for a read-only share: 'readonly' from 25.10, 'ro' before.")
    smb_purpose: str = Field(
        description="sharing.smb purpose for a plain share: DEFAULT_SHARE from 25.10 (NO_PRESET is gone), "
                    "NO_PRESET before.")
    lag_protocols: tuple[str, ...] = Field(description="LAG protocols interface.create accepts on this platform.")
    lag_name_prefix: Literal["bond", "lagg"] = Field(description="LAGG interface names: bondN (SCALE), laggN (CORE).")
    lag_hash_options: bool = Field(description="xmit_hash_policy and lacpdu_rate exist (SCALE only).")
    mtu_range: tuple[int, int] = Field(description="MTU interface.create/update accept: 68..9216 (SCALE), "
                                                   "1492..9216 (CORE).")


def parse_version(text: str) -> TrueNASVersion:
    """system.version's text as a TrueNASVersion; ValidationError on anything else."""
    if not isinstance(text, str):
        raise ValidationError.one("system.version", f"expected a version string, got {type(text).__name__}")
    if (m := _SCALE_NAMED.match(text)) is not None:
        return _scale(text, _numbers(m.group("release")), m.group("suffix"))
    if (m := _BARE.match(text)) is not None:
        release = _numbers(m.group("release"))
        if release[0] >= FIRST_SCALE_MAJOR:
            return _scale(text, release, m.group("suffix"))
        return _core(text, release, m.group("suffix"))
    raise ValidationError.one(
        "system.version", f"{text!r} is not a TrueNAS version (TrueNAS-SCALE-24.10.2.4, TrueNAS-25.10.1, "
                          "TrueNAS-13.3-U1.2); is this a TrueNAS?")


def _numbers(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def _scale(text: str, release: tuple[int, ...], suffix: str | None) -> TrueNASVersion:
    from_25_10 = release[:2] >= (25, 10)
    return TrueNASVersion(
        text=text, platform="SCALE", release=release, prerelease=suffix,
        protocol="jsonrpc" if release[:2] >= (25, 4) else "legacy",
        hosts_as_list=release[:2] >= (23, 10),
        smb_readonly_field="readonly" if from_25_10 else "ro",
        smb_purpose="DEFAULT_SHARE" if from_25_10 else "NO_PRESET",
        lag_protocols=SCALE_LAG_PROTOCOLS, lag_name_prefix="bond", lag_hash_options=True, mtu_range=(68, 9216),
    )


def _core(text: str, release: tuple[int, ...], suffix: str | None) -> TrueNASVersion:
    prerelease = suffix
    if suffix and (m := _CORE_UPDATE.match(suffix)) is not None:
        # "U1.2" is an update of the release, not a pre-release: 13.3-U1.2 -> (13, 3, 1, 2)
        release = (*release, int(m.group("update")), int(m.group("patch") or 0))
        prerelease = suffix[m.end():].lstrip("-") or None
    return TrueNASVersion(
        text=text, platform="CORE", release=release, prerelease=prerelease, protocol="legacy",
        hosts_as_list=False, smb_readonly_field="ro", smb_purpose="NO_PRESET",
        lag_protocols=CORE_LAG_PROTOCOLS, lag_name_prefix="lagg", lag_hash_options=False, mtu_range=(1492, 9216),
    )
