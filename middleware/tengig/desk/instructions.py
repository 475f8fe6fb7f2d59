"""What the NAS may ask a desktop to run, checked before anything runs: every value that reaches a
command line is validated here (an address, a port, small integers, a share and a scratch name of
tengig's own shape). A NAS that asks for anything else gets a refusal, not a command.

The address must be the NAS this desktop joined (``nas``: the addresses its URL's host resolved to, the
one its socket reached, and those the user listed with --nas-address): a hostile NAS, or anyone on the
path of a plain ws://, cannot send the desktop's iperf3, nor its SMB client with the user's credentials,
to another host. A file to copy must fit the desktop's free space with room to spare."""
from __future__ import annotations

import ipaddress
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from ..join_protocol.limits import (IPERF3_LIMITS, MAX_FILE_BYTES, MIN_FILE_BYTES, SMALL_COUNT_LIMITS,
                                    SMALL_SIZE_LIMITS, SMALLFILES_OPS, SMB_MIN_COPY, SMB_OPS, small_total_error)
from ..join_protocol.naming import CLIENT_DIR_RE, REMOTE_RE
from ..names import SHARE_RE
from ..units import GiB, format_size
from .nas_url import ZONE_RE

# Before joining, a desktop that copies checks it has room for the smallest file a run copies.
SMALLEST_COPY_BYTES = SMB_MIN_COPY
# A file to copy leaves this much of the desktop's disk free (whichever is more).
FREE_MARGIN_BYTES = 1 * GiB
FREE_MARGIN_SHARE = 20  # 1/20 of the disk


def _int(params: dict[str, Any], name: str, lo: int, hi: int) -> int:
    value = params.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValidationError.one(f"instruction.{name}", f"{value!r} is not a whole number from {lo} to {hi}")
    return value


def ip_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An IP address, its zone (if any) an interface name or index; ValueError otherwise."""
    address = ipaddress.ip_address(text)
    zone = getattr(address, "scope_id", None)
    if zone is not None and not ZONE_RE.fullmatch(zone):
        raise ValueError(f"{zone!r} is not an interface name or index")
    return address


def plain_address(text: str) -> str:
    """An IP address as one host has it, whatever its spelling: no zone (fe80::1%eth0 is fe80::1), an
    IPv4-mapped IPv6 address as IPv4. ValueError when ``text`` is not an IP address."""
    address = ipaddress.ip_address(str(ip_address(text)).split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def nas_addresses(addresses: Iterable[str]) -> frozenset[str]:
    """The NAS's addresses, as ``_address`` compares them (anything not an IP address left out)."""
    out = set()
    for text in addresses:
        try:
            out.add(plain_address(text))
        except ValueError:
            pass
    return frozenset(out)


def _address(params: dict[str, Any], nas: frozenset[str]) -> str:
    value = params.get("server")
    try:
        address = str(ip_address(str(value)))
    except ValueError:
        raise ValidationError.one("instruction.server", f"{value!r} is not an IP address") from None
    if plain_address(address) not in nas:
        raise ValidationError.one("instruction.server", (
            f"{address} is not the NAS this desktop joined ({', '.join(sorted(nas)) or 'no address known'}): "
            f"nothing runs against another host; if the NAS is also at {address} (another of its links), join "
            f"again with --nas-address {address}"))
    return address


def iperf3_argv(params: dict[str, Any], nas: frozenset[str]) -> list[str]:
    """iperf3's argv for an instruction; ``nas``: the addresses it may name (``nas_addresses``)."""
    address = _address(params, nas)
    n = {name: str(_int(params, name, lo, hi)) for name, (lo, hi) in IPERF3_LIMITS.items()}
    argv = ["iperf3", "-c", address, "-p", n["port"], "-t", n["seconds"], "-O", n["omit"], "-P", n["streams"], "-J"]
    return argv + (["-R"] if params.get("reverse") is True else [])


def smb_op(params: dict[str, Any], nas: frozenset[str]) -> tuple[str, str, str, str, int]:
    """(op, server, share, remote, size) of an SMB instruction, validated; ``nas`` as for iperf3_argv."""
    op = params.get("op")
    if op not in SMB_OPS:
        raise ValidationError.one("instruction.op", f"{op!r} is not {', '.join(SMB_OPS[:-1])} or {SMB_OPS[-1]}")
    share = params.get("share")
    if not isinstance(share, str) or not SHARE_RE.fullmatch(share):
        raise ValidationError.one("instruction.share", f"{share!r} is not a share name")
    remote = params.get("remote")
    if not isinstance(remote, str) or not REMOTE_RE.fullmatch(remote):
        raise ValidationError.one("instruction.remote", f"{remote!r} is not a tengig scratch name")
    return op, _address(params, nas), share, remote, _int(params, "size", MIN_FILE_BYTES, MAX_FILE_BYTES)


def small_files(params: dict[str, Any]) -> tuple[int, int]:
    """(size, count) of a small-file instruction, validated."""
    size, count = _int(params, "size", *SMALL_SIZE_LIMITS), _int(params, "count", *SMALL_COUNT_LIMITS)
    if (why := small_total_error(size, count)) is not None:
        raise ValidationError.one("instruction.count", why)
    return size, count


def smallfiles_op(params: dict[str, Any], nas: frozenset[str]) -> tuple[str, str, str, str, int, int]:
    """(op, server, share, client directory, size, count) of a small-file instruction, validated; ``nas`` as
    for iperf3_argv. The files go in the directory's ``small-SIZE`` (small_dir)."""
    op = params.get("op")
    if op not in SMALLFILES_OPS:
        raise ValidationError.one("instruction.op", f"{op!r} is not one of {', '.join(SMALLFILES_OPS)}")
    share = params.get("share")
    if not isinstance(share, str) or not SHARE_RE.fullmatch(share):
        raise ValidationError.one("instruction.share", f"{share!r} is not a share name")
    remote = params.get("remote")
    if not isinstance(remote, str) or not CLIENT_DIR_RE.fullmatch(remote):
        raise ValidationError.one("instruction.remote", f"{remote!r} is not a tengig scratch directory")
    size, count = small_files(params)
    return op, _address(params, nas), share, remote, size, count


def small_dir(remote: str, size: int) -> str:
    """The share's directory of one size's files, as smbclient names it."""
    return f"{remote}\\small-{size}"


def disk_size(params: dict[str, Any]) -> int:
    """The file size of an own-disk instruction (the SMB copies'), validated as theirs is."""
    return _int(params, "size", MIN_FILE_BYTES, MAX_FILE_BYTES)


def check_room(workdir: Path, size: int, *, field: str = "--workdir") -> None:
    """A file of ``size`` bytes fits in ``workdir`` (given with ``field``) and leaves FREE_MARGIN_BYTES or
    1/FREE_MARGIN_SHARE of its disk free (ValidationError instruction.size, before anything is written)."""
    check_room_for([(field, workdir, size)])


def check_room_for(needs: Sequence[tuple[str, Path, int]]) -> None:
    """Everything a step holds at once fits: ``needs``, each (the flag that gave the directory, the directory,
    bytes), in the order to name them. What goes on one disk is added up (--disk and --workdir are often on
    the same one), and each disk keeps its margin free (check_room's); ValidationError instruction.size,
    naming the first flag and the numbers, before anything is written."""
    disks: dict[int, tuple[Any, list[tuple[str, Path, int]]]] = {}
    for field, directory, size in needs:
        try:
            device, usage = os.stat(directory).st_dev, shutil.disk_usage(directory)
        except OSError as exc:
            raise ValidationError.one("instruction.size", f"cannot read the free space of {directory}: "
                                      f"{exc.strerror}; give {field} a directory on a local disk") from exc
        disks.setdefault(device, (usage, []))[1].append((field, directory, size))
    for usage, held in disks.values():
        total = sum(size for _, _, size in held)
        margin = max(FREE_MARGIN_BYTES, usage.total // FREE_MARGIN_SHARE)
        if total + margin <= usage.free:
            continue
        field, directory, size = held[0]
        if len(held) == 1:
            what = f"a file of {format_size(size)} does not fit in {directory}"
        else:
            parts = " and ".join(f"{format_size(s)} in {d} ({f})" for f, d, s in held)
            what = f"{parts}, held at once on one disk ({format_size(total)}), do not fit"
        raise ValidationError.one("instruction.size", (
            f"{what}: {format_size(usage.free)} free, of which {format_size(margin)} must stay free; give {field} "
            "a directory on a disk with room"))
