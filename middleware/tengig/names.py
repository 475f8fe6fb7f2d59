"""Strict patterns for every name that reaches a command line or a file path.

Names are checked before anything acts on them; a name that does not match is refused with the
field it came from. Patterns are deliberately narrower than what the kernel or ZFS would accept.
"""
from __future__ import annotations

import re

from .errors import ValidationError

HOSTNAME_RE = re.compile(r"^[a-z][a-z0-9]{0,9}$")  # lab/mesh host names: short, lower-case
IFNAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]{0,14}$")  # Linux IFNAMSIZ is 16 with the NUL
DATASET_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]{0,63}(/[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}){0,8}$")
SHARE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
FILENAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
# A name other machines resolve (hosts files): one lower-case RFC 1123 label, no dots.
DNS_LABEL_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
# FreeBSD interface names end up in rc.conf variable names (ifconfig_<name>): shell-identifier safe.
FREEBSD_IFNAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,14}$")
# Windows adapter aliases ("Ethernet 3") go into single-quoted PowerShell strings: no quotes, no
# leading or trailing blanks, nothing PowerShell or a label printer would trip over.
WINDOWS_ADAPTER_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9 ()#._-]{0,62}[A-Za-z0-9)])?$")
# The interface a joining desktop names (shown in the NAS's report and advice): a Linux or macOS name
# (enp3s0, br0.100, en0) or a Windows alias (Ethernet 2, vEthernet (Default Switch), Local Area
# Connection* 12). ASCII, so Python, pydantic's and .NET's regex engines read it alike (the Windows kit
# checks it too); a desktop leaves out a name that does not fit (the NAS then says "unknown").
DESKTOP_IFNAME_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9 ()#*+.:@_-]{0,62}[A-Za-z0-9()#*+.:@_-])?$")


def check(pattern: re.Pattern[str], value: str, *, field: str, what: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ValidationError.one(field, f"{value!r} is not a valid {what} (allowed: {pattern.pattern})")
    return value


def hostname(value: str, *, field: str = "host") -> str:
    return check(HOSTNAME_RE, value, field=field, what="host name")


def ifname(value: str, *, field: str = "interface") -> str:
    return check(IFNAME_RE, value, field=field, what="interface name")


def dataset(value: str, *, field: str = "dataset") -> str:
    return check(DATASET_RE, value, field=field, what="dataset name")


def share(value: str, *, field: str = "share") -> str:
    return check(SHARE_RE, value, field=field, what="SMB share name")


def filename(value: str, *, field: str = "file") -> str:
    return check(FILENAME_RE, value, field=field, what="file name (no slashes)")


def dns_label(value: str, *, field: str = "name") -> str:
    return check(DNS_LABEL_RE, value, field=field, what="host name (lower-case letters, digits, inner hyphens)")


def freebsd_ifname(value: str, *, field: str = "interface") -> str:
    return check(FREEBSD_IFNAME_RE, value, field=field, what="FreeBSD interface name")


def windows_adapter(value: str, *, field: str = "interface") -> str:
    return check(WINDOWS_ADAPTER_RE, value, field=field, what="Windows network adapter name")


def natural_key(text: str) -> tuple:
    """'enp3s0f10' sorts after 'enp3s0f2', 'Ethernet 10' after 'Ethernet 9'."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part)
