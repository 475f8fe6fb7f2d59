"""ZFS through its command line on a host (plain Linux with OpenZFS, or the lab's zfs-fuse on `nas`).
Implements bench.scratch.ScratchStorage. Every command goes through the benchmark's context, so it
honours the cancel token and is kept with the run's raw outputs."""
from __future__ import annotations

import re
import time

from ..commands import CommandContext
from ..scratch import (
    RECORDSIZES, SCRATCH_PREFIX, SCRATCH_PROPERTY, SPEED_PROPERTIES, PoolSpace, PrimaryCache, ScratchInfo,
    require_scratch,
)
from ...errors import CommandFailed, ToolOutputError, ValidationError
from ...names import DATASET_RE
from ...units import parse_size

T = 60
DESTROY_TRIES = 7
SETTLE_LIMIT_S = 30  # write-back still going after this long: measure anyway, and say so
SETTLED_WRITE_BPS = 2**20  # a pool writing less than this per second has nothing left to write
TAG_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


def parse_ratio(text: str) -> float:
    """'1.00x' or '1.00' -> 1.0."""
    m = re.fullmatch(r"\s*([\d.]+)x?\s*", text)
    if not m:
        raise ToolOutputError(f"zfs printed an unreadable compressratio: {text.strip()[:60]!r}")
    return float(m.group(1))


def parse_values(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def parse_speed_properties(text: str) -> dict[str, str]:
    """`zfs get -Hp -o property,value all DATASET` -> its SPEED_PROPERTIES (those this ZFS has)."""
    found = {}
    for line in text.splitlines():
        name, sep, value = line.partition("\t")
        if sep and name in SPEED_PROPERTIES:
            found[name] = value.strip()
    return found


def dataset_at(listing: str, path: str) -> str | None:
    """`zfs list -H -o name,mountpoint` output -> the dataset mounted exactly at ``path``."""
    want = path.rstrip("/")
    for line in listing.splitlines():
        name, _, mountpoint = line.partition("\t")
        if mountpoint.strip().rstrip("/") == want and name.strip():
            return name.strip()
    return None


def iostat_write_bps(text: str, pool: str) -> int | None:
    """`zpool iostat POOL 1 2` -> the pool's write bandwidth in its last line (the second just gone; the first
    line is the average since import), bytes/s; None if no line for the pool."""
    rows = [line.split() for line in text.splitlines() if line.split()[:1] == [pool]]
    if not rows or len(rows[-1]) != 7:
        return None
    try:
        return parse_size(rows[-1][6], field="zpool iostat")  # 84.7M: binary units, like zpool's
    except ValidationError:
        return None


class ZfsCli:
    """The zfs and zpool programs (OpenZFS on Linux and FreeBSD, zfs-fuse). ``scratch_parent``: a dataset
    of the pool under which scratch datasets are made instead of the pool's root (a FreeBSD jail may only
    create datasets under the one delegated to it)."""

    def __init__(self, ctx: CommandContext, host: str, *, scratch_parent: str | None = None):
        self.ctx, self.host, self.scratch_parent = ctx, host, scratch_parent

    def _zfs(self, *args: str, check: bool = True, ctx: CommandContext | None = None):
        return (ctx or self.ctx).run(self.host, ["zfs", *args], timeout=T, check=check, tool="zfs")

    @staticmethod
    def _check_pool(pool: str) -> None:
        if not DATASET_RE.fullmatch(pool) or "/" in pool:
            raise ValidationError.one("pool", f"{pool!r} is not a pool name (letters, digits, -_.:)")

    def space(self, pool: str) -> PoolSpace:
        self._check_pool(pool)
        done = self._zfs("get", "-Hp", "-o", "value", "used,available", pool, check=False)
        if done.returncode != 0:
            raise ValidationError.one("pool", f"no pool {pool!r} on {self.host}: {done.stderr.strip()[:200]}")
        values = parse_values(done.stdout)
        if len(values) != 2 or not all(v.isdigit() for v in values):
            raise ToolOutputError(f"`zfs get used,available {pool}` printed {done.stdout.strip()[:100]!r}")
        return PoolSpace(used=int(values[0]), available=int(values[1]))

    def create_scratch(self, pool: str, tag: str) -> ScratchInfo:
        self._check_pool(pool)
        if self.scratch_parent is not None and self.scratch_parent.split("/")[0] == pool:
            return self.create_scratch_under(self.scratch_parent, tag)
        return self._create(pool, tag)

    def create_scratch_under(self, parent: str, tag: str, *, inherit: bool = False) -> ScratchInfo:
        if not DATASET_RE.fullmatch(parent):
            raise ValidationError.one("dataset", f"{parent!r} is not a dataset name")
        return self._create(parent, tag, inherit=inherit)

    def _create(self, parent: str, tag: str, *, inherit: bool = False) -> ScratchInfo:
        if not TAG_RE.fullmatch(tag):
            raise ValueError(f"bad scratch tag {tag!r}")
        name = f"{parent}/{SCRATCH_PREFIX}-{tag}"
        last = ""
        # inherit: the parent's own recordsize, compression and atime (one try: nothing of its own to refuse)
        for recordsize in (None,) if inherit else RECORDSIZES:
            own = [] if recordsize is None else ["-o", "compression=off", "-o", "atime=off", "-o",
                                                 f"recordsize={recordsize}"]
            done = self._zfs("create", *own, "-o", f"{SCRATCH_PROPERTY}={tag}", name, check=False)
            if done.returncode == 0:
                break
            last = done.stderr.strip()
            if "recordsize" not in last:
                raise CommandFailed(list(done.argv), done.returncode, done.stdout, done.stderr)
        else:
            raise ToolOutputError(f"cannot create {name}: {last}")
        got = parse_values(self._zfs("get", "-Hp", "-o", "value", "mountpoint,recordsize,compression,atime",
                                     name).stdout)
        if len(got) != 4:
            raise ToolOutputError(f"`zfs get` on {name} printed {got!r}")
        return ScratchInfo(name=name, mountpoint=got[0], recordsize=parse_size(got[1]), compression=got[2],
                           atime=got[3])

    def set_primarycache(self, dataset: str, value: PrimaryCache) -> None:
        require_scratch(dataset, f"set primarycache={value} on")
        if value not in ("all", "metadata"):
            raise ValueError(f"primarycache={value!r}: tengig sets only all or metadata")
        self._zfs("set", f"primarycache={value}", dataset, ctx=self.ctx.uncancellable())

    def dataset_mounted_at(self, path: str) -> str | None:
        done = self._zfs("list", "-H", "-o", "name,mountpoint", "-t", "filesystem", check=False)
        if done.returncode != 0:
            return None  # no ZFS here (a share on another file system)
        return dataset_at(done.stdout, path)

    def settle_writes(self, pool: str) -> str:
        self._check_pool(pool)
        done = self.ctx.run(self.host, ["zpool", "sync", pool], timeout=300, check=False, tool="zpool")
        if done.returncode == 0:
            return "zpool sync"
        # ZFS before OpenZFS 0.8 (the lab's zfs-fuse) has no `zpool sync`: watch the pool's writes instead
        started = time.monotonic()
        while (waited := time.monotonic() - started) < SETTLE_LIMIT_S:
            done = self.ctx.run(self.host, ["zpool", "iostat", pool, "1", "2"], timeout=T, check=False, tool="zpool")
            written = iostat_write_bps(done.stdout, pool) if done.returncode == 0 else None
            if written is None:
                return f"not waited: `zpool iostat {pool}` printed no figure for it ({done.stderr.strip()[:100]})"
            if written < SETTLED_WRITE_BPS:
                return f"zpool iostat: no writes left after {waited + 1:.0f} s"
        return f"the pool was still writing after {SETTLE_LIMIT_S} s"

    def dataset_properties(self, dataset: str) -> dict[str, str]:
        if not DATASET_RE.fullmatch(dataset):
            raise ValidationError.one("dataset", f"{dataset!r} is not a dataset name")
        # `all`, then picked: naming sync where this ZFS lacks it (zfs-fuse) would fail the whole `zfs get`
        done = self._zfs("get", "-Hp", "-o", "property,value", "all", dataset, check=False)
        if done.returncode != 0:
            raise ToolOutputError(f"`zfs get all {dataset}` failed: {done.stderr.strip()[:200]}")
        return parse_speed_properties(done.stdout)

    def compressratio(self, dataset: str) -> float:
        return parse_ratio(self._zfs("get", "-Hp", "-o", "value", "compressratio", dataset).stdout)

    def destroy(self, dataset: str) -> None:
        require_scratch(dataset, "destroy")
        for attempt in range(DESTROY_TRIES):
            # zfs-fuse can hold a just-closed dataset "busy" indefinitely; -f (force unmount) is safe here:
            # the dataset is tengig's own scratch space.
            force = ["-f"] if attempt else []
            # uncancellable: removing the scratch dataset is what an abort must still do
            done = self._zfs("destroy", "-r", *force, dataset, check=False, ctx=self.ctx.uncancellable())
            if done.returncode == 0 or "does not exist" in done.stderr:
                return
            if "busy" not in done.stderr or attempt == DESTROY_TRIES - 1:
                raise CommandFailed(list(done.argv), done.returncode, done.stdout, done.stderr)
            # -f at once (zfs-fuse's hold mostly goes with it), then pauses doubling from 0.25 s: 7.75 s in all,
            # for an smbd child of a slow client that lets go late
            time.sleep(0.25 * 2 ** (attempt - 1) if attempt else 0)

    def find_scratch(self, pool: str) -> list[str]:
        """Datasets carrying tengig's scratch tag (set locally), e.g. left by a killed run."""
        self._check_pool(pool)
        done = self._zfs("get", "-H", "-r", "-s", "local", "-o", "name,value", SCRATCH_PROPERTY, pool)
        found = []
        for line in done.stdout.splitlines():
            name, _, value = line.partition("\t")
            if value.strip() not in ("", "-") and f"/{SCRATCH_PREFIX}-" in name:
                found.append(name.strip())
        return found
