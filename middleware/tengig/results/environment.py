"""Fingerprint of the system a run measures: tool versions, kernel, OS, ZFS, ARC size, dataset
properties, NICs.

Best-effort but honest: a probe that cannot answer leaves None (or leaves the entry out) and
says why in ``Environment.probe_errors``; nothing is guessed and nothing here raises for a
missing tool. Every program runs through the runner as an argv list with a timeout. The
``parse_*`` functions are pure (text -> values) and tested on recorded output; the ARC's statistics are read
by backends/linux/arcstats.py, as the benchmark reads the NAS's."""
from __future__ import annotations

import json
import re
import socket
import sys
from pathlib import Path

from .. import names
from ..backends.linux.arcstats import PROC_ARCSTATS, ZFS_FUSE_KSTAT, parse_arcstats, read_kstat_dir
from ..errors import CommandError, ToolOutputError
from ..runner import Completed, Runner
from .models import Environment, Nic

OS_RELEASE = Path("/etc/os-release")
TRUENAS_VERSION = Path("/etc/version")  # TrueNAS SCALE: '25.04.2.6'; CORE: 'TrueNAS-13.0-U6.1'; absent elsewhere
POOL_SECTIONS = ("logs", "cache", "spares", "special", "dedup")  # zpool status's headings besides the data vdevs
PROBE_TIMEOUT_S = 10.0
DATASET_PROPERTIES = (
    "recordsize", "compression", "compressratio", "atime", "sync", "primarycache", "secondarycache",
    "checksum", "dedup", "logbias", "copies", "used", "available",
)
USER_PROPERTY_PREFIX = "tengig:"  # tengig's own tags on scratch datasets are kept too

VERSION_PROBES: dict[str, tuple[tuple[str, ...], re.Pattern[str]]] = {
    "fio": (("fio", "--version"), re.compile(r"^(fio-\S+)", re.M)),  # fio-3.33
    "iperf3": (("iperf3", "--version"), re.compile(r"^iperf (\d\S*)", re.M)),  # iperf 3.12 (cJSON 1.7.15)
    "smbd": (("smbd", "--version"), re.compile(r"^Version (\S+)", re.M)),  # Version 4.17.12-Debian
    "smbclient": (("smbclient", "--version"), re.compile(r"^Version (\S+)", re.M)),
}
_ZFS_VERSION_RE = re.compile(r"^(zfs-\S+)", re.M)  # `zfs version`: zfs-2.1.11-1 / zfs-kmod-2.1.11-1
_POOL_VERSION_RE = re.compile(r"running ZFS pool version (\d+)")  # `zpool upgrade -v` (zfs-fuse, old ZFS)


# -- pure parsers ---------------------------------------------------------------------------------

def parse_tool_version(tool: str, text: str) -> str | None:
    """The version a tool printed for --version, or None if the text is not recognised."""
    m = VERSION_PROBES[tool][1].search(text)
    return m.group(1) if m else None


def parse_zfs_version(text: str) -> str | None:
    """`zfs version` -> 'zfs-2.1.11-1 (zfs-kmod-2.1.11-1)'; `zpool upgrade -v` -> 'ZFS pool version 23'."""
    found = _ZFS_VERSION_RE.findall(text)
    if found:
        return found[0] + (f" ({', '.join(found[1:])})" if found[1:] else "")
    m = _POOL_VERSION_RE.search(text)
    return f"ZFS pool version {m.group(1)}" if m else None


def parse_zfs_get(text: str) -> dict[str, str]:
    """`zfs get -Hp -o property,value all DATASET` -> the properties tengig keeps."""
    props: dict[str, str] = {}
    for line in text.splitlines():
        prop, sep, value = line.partition("\t")
        if sep and (prop in DATASET_PROPERTIES or prop.startswith(USER_PROPERTY_PREFIX)):
            props[prop] = value
    return props


def parse_zpool_layout(text: str) -> str | None:
    """`zpool status POOL` -> its vdev tree in one line: 'mirror-0 (sda, sdb), mirror-1 (sdc, sdd); logs: nvme0n1'.
    A device straight under the pool is a vdev of its own (a stripe). None when there is no config table."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["NAME", "STATE"])
    except StopIteration:
        return None
    rows = []
    for line in lines[start + 1:]:
        if not line.strip() or line.lstrip().startswith("errors:"):
            break
        body = line.lstrip("\t")
        rows.append(((len(body) - len(body.lstrip(" "))) // 2, body.split()[0]))
    if not rows:
        return None
    groups: list[tuple[str, list[str]]] = [("", [])]  # (section, its vdevs as text)
    vdev: list = []  # [name, [devices]] of the vdev being read
    for depth, name in rows[1:]:  # rows[0] is the pool itself
        if depth == 0 and name in POOL_SECTIONS:
            groups.append((name, []))
        elif depth == 1:
            vdev = [name, []]
            groups[-1][1].append(vdev)
        elif depth >= 2 and vdev:
            vdev[1].append(name)
    parts = []
    for section, vdevs in groups:
        text_ = ", ".join(f"{n} ({', '.join(devs)})" if devs else n for n, devs in vdevs)
        if text_:
            parts.append(f"{section}: {text_}" if section else text_)
    return "; ".join(parts) or None


def parse_os_release(text: str) -> str | None:
    """PRETTY_NAME from /etc/os-release (falls back to NAME VERSION_ID)."""
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip().strip('"').strip("'")
    if values.get("PRETTY_NAME"):
        return values["PRETTY_NAME"]
    joined = " ".join(v for v in (values.get("NAME"), values.get("VERSION_ID")) if v)
    return joined or None


def parse_ip_links(text: str) -> list[tuple[str, int | None, str | None]]:
    """`ip -j -d link show` -> [(name, mtu, virtual link kind)], loopback left out."""
    try:
        links = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"`ip -j link` printed no JSON ({exc})") from exc
    return [
        (link["ifname"], link.get("mtu"), (link.get("linkinfo") or {}).get("info_kind"))
        for link in links
        if link.get("link_type") != "loopback" and "ifname" in link
    ]


def parse_sysfs_grep(text: str) -> dict[str, dict[str, int | str | None]]:
    """`grep -s -H '' /sys/class/net/X/speed /sys/class/net/X/device/uevent ...` ->
    {X: {'speed_bps': ..., 'driver': ...}}. sysfs speed is Mb/s; -1 (unknown) becomes None."""
    found: dict[str, dict[str, int | str | None]] = {}
    for line in text.splitlines():
        path, sep, value = line.partition(":")
        parts = path.split("/")
        if not sep or len(parts) < 6 or parts[1:4] != ["sys", "class", "net"]:
            continue
        nic = found.setdefault(parts[4], {"speed_bps": None, "driver": None})
        if parts[5:] == ["speed"] and re.fullmatch(r"\d+", value.strip()):
            nic["speed_bps"] = int(value) * 1_000_000 or None
        elif parts[5:] == ["device", "uevent"] and value.startswith("DRIVER="):
            nic["driver"] = value[len("DRIVER="):].strip() or None
    return found


# -- probes -----------------------------------------------------------------------------------------

def collect_environment(
    runner: Runner,
    *,
    dataset: str | None = None,
    netns: str | None = None,
    proc_arcstats: Path = Path(PROC_ARCSTATS),
    kstat_dir: Path = Path(ZFS_FUSE_KSTAT),
    os_release: Path = OS_RELEASE,
    truenas_version: Path = TRUENAS_VERSION,
    timeout: float = PROBE_TIMEOUT_S,
) -> Environment:
    """Probe this system. ``dataset``: the measured dataset (its properties are recorded);
    ``netns``: the namespace whose NICs are recorded (the lab's NAS), None for this one."""
    if dataset is not None:
        names.dataset(dataset)
    errors: dict[str, str] = {}
    tools: dict[str, str | None] = {}
    for tool, (argv, _) in VERSION_PROBES.items():
        done = _run(runner, list(argv), timeout, errors, tool)
        tools[tool] = _version_from(tool, done, errors) if done else None
    done = _run(runner, ["uname", "-r"], timeout, errors, "kernel")
    kernel = (done.stdout.strip() or None) if done and done.returncode == 0 else None
    if done and kernel is None:
        errors["kernel"] = _failure(done)
    arc, arc_source = _arc_max(runner, proc_arcstats, kstat_dir, timeout, errors)
    return Environment(
        tools=tools,
        kernel=kernel,
        os=_os_name(os_release, errors),
        zfs_version=_zfs_version(runner, timeout, errors),
        arc_size_bytes=arc,
        arc_source=arc_source,
        dataset_properties=_dataset_properties(runner, dataset, timeout, errors) if dataset else {},
        pool_layout=_pool_layout(runner, dataset.split("/")[0], timeout, errors) if dataset else None,
        truenas_version=_truenas_version(truenas_version),
        nics=_nics(runner, netns, timeout, errors),
        hostname=socket.gethostname() or None,
        probe_errors=errors,
    )


def _run(runner: Runner, argv: list[str], timeout: float, errors: dict[str, str], key: str,
         netns: str | None = None) -> Completed | None:
    try:
        return runner.run(argv, timeout=timeout, check=False, netns=netns)
    except CommandError as exc:  # not installed, or hung past the timeout
        errors[key] = exc.message
        return None


def _failure(done: Completed) -> str:
    tail = (done.stderr.strip() or done.stdout.strip())[-300:] or "(no output)"
    return f"`{' '.join(done.argv)}` exited with {done.returncode}: {tail}"


def _version_from(tool: str, done: Completed, errors: dict[str, str]) -> str | None:
    version = parse_tool_version(tool, done.stdout + "\n" + done.stderr) if done.returncode == 0 else None
    if version is None:
        errors[tool] = _failure(done) if done.returncode else f"version not recognised in: {done.stdout.strip()[:200]}"
    return version


def _os_name(path: Path, errors: dict[str, str]) -> str | None:
    try:
        name = parse_os_release(path.read_text())
    except OSError as exc:
        errors["os"] = f"cannot read {path}: {exc.strerror}"
        return None
    if name is None:
        errors["os"] = f"{path} has no PRETTY_NAME or NAME"
    return name


def _zfs_version(runner: Runner, timeout: float, errors: dict[str, str]) -> str | None:
    # OpenZFS >= 0.8 answers `zfs version`. zfs-fuse does not, but `zpool upgrade -v` prints its pool
    # version on the first line even when it exits 1 for want of a daemon: the sentence is the answer.
    done = _run(runner, ["zfs", "version"], timeout, errors, "zfs_version")
    if done and done.returncode == 0 and (version := parse_zfs_version(done.stdout)):
        errors.pop("zfs_version", None)
        return version
    upgrade = _run(runner, ["zpool", "upgrade", "-v"], timeout, errors, "zfs_version")
    if upgrade and (version := parse_zfs_version(upgrade.stdout)):
        errors.pop("zfs_version", None)
        return version
    errors.setdefault("zfs_version", _failure(upgrade) if upgrade else "no ZFS tools answered")
    return None


def _arc_max(runner: Runner, proc_arcstats: Path, kstat_dir: Path, timeout: float,
             errors: dict[str, str]) -> tuple[int | None, str | None]:
    tried = []
    try:
        if proc_arcstats.exists():
            return parse_arcstats(proc_arcstats.read_text())["c_max"], str(proc_arcstats)
        tried.append(f"{proc_arcstats} absent")
        if kstat_dir.is_dir():
            return read_kstat_dir(kstat_dir)["c_max"], str(kstat_dir / "c_max")
        tried.append(f"{kstat_dir} absent")
    except KeyError:
        errors["arc_size_bytes"] = f"ARC statistics at {proc_arcstats} or {kstat_dir} have no c_max"
        return None, None
    except (OSError, ToolOutputError) as exc:
        errors["arc_size_bytes"] = f"ARC statistics unreadable: {exc}"
        return None, None
    if sys.platform.startswith("freebsd"):
        name = "kstat.zfs.misc.arcstats.c_max"
        done = _run(runner, ["sysctl", "-n", name], timeout, errors, "arc_size_bytes")
        if done and done.returncode == 0 and done.stdout.strip().isdigit():
            return int(done.stdout), f"sysctl {name}"
        tried.append(f"sysctl {name} unanswered")
    errors["arc_size_bytes"] = "no ARC statistics: " + "; ".join(tried) + " (is ZFS loaded?)"
    return None, None


def _dataset_properties(runner: Runner, dataset: str, timeout: float, errors: dict[str, str]) -> dict[str, str]:
    # `all`, then filtered: naming one property this ZFS lacks would fail the whole `zfs get`.
    done = _run(runner, ["zfs", "get", "-Hp", "-o", "property,value", "all", dataset], timeout, errors,
                "dataset_properties")
    if done is None:
        return {}
    props = parse_zfs_get(done.stdout) if done.returncode == 0 else {}
    if not props:
        errors["dataset_properties"] = _failure(done) if done.returncode else f"`zfs get` listed nothing for {dataset}"
    return props


def _pool_layout(runner: Runner, pool: str, timeout: float, errors: dict[str, str]) -> str | None:
    done = _run(runner, ["zpool", "status", pool], timeout, errors, "pool_layout")
    if done is None:
        return None
    layout = parse_zpool_layout(done.stdout) if done.returncode == 0 else None
    if layout is None:
        errors["pool_layout"] = _failure(done) if done.returncode else f"`zpool status {pool}` showed no vdevs"
    return layout


def _truenas_version(path: Path) -> str | None:
    """The first line of /etc/version where TrueNAS keeps it; None on other systems (not an error)."""
    try:
        return path.read_text().strip().splitlines()[0] or None
    except (OSError, IndexError):
        return None


def _nics(runner: Runner, netns: str | None, timeout: float, errors: dict[str, str]) -> list[Nic]:
    done = _run(runner, ["ip", "-j", "-d", "link", "show"], timeout, errors, "nics", netns)
    if done is None:
        return []
    if done.returncode != 0:
        errors["nics"] = _failure(done)
        return []
    try:
        links = parse_ip_links(done.stdout)
    except ToolOutputError as exc:
        errors["nics"] = exc.message
        return []
    files = [f"/sys/class/net/{name}/{leaf}" for name, _, _ in links for leaf in ("speed", "device/uevent")]
    sysfs: dict[str, dict[str, int | str | None]] = {}
    if files:
        # grep exits 2 when some files cannot be read (speed of a down link): what it printed still counts.
        found = _run(runner, ["grep", "-s", "-H", "", *files], timeout, errors, "nics.sysfs", netns)
        sysfs = parse_sysfs_grep(found.stdout) if found else {}
    nics = []
    for name, mtu, kind in links:
        extra = sysfs.get(name, {})
        speed, driver = extra.get("speed_bps"), extra.get("driver")
        nics.append(Nic(
            name=name,
            mtu=mtu,
            speed_bps=speed if isinstance(speed, int) else None,
            driver=driver if isinstance(driver, str) else kind,
        ))
    return nics
