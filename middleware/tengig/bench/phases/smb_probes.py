"""What an SMB benchmark reads besides the transfer itself (pure parsers): the session's dialect,
signing and encryption from `smbstatus --json`; the interface byte counters (LinkCounters, read from
`ip -s -j link` by backends/linux/link_stats.py: they prove the bytes crossed the wire); smbd's CPU time from
/proc/PID/stat."""
from __future__ import annotations

import json

from pydantic import BaseModel, Field

from ...errors import ToolOutputError
from ..context import BenchContext


class SmbSession(BaseModel):
    dialect: str = Field(description="Negotiated dialect as smbstatus names it, e.g. 'SMB3_11'.")
    signing_cipher: str
    signing_degree: str = Field(description="none | partial | full (smbstatus): full when every packet so far "
                                "was signed, partial when only some were (SMB 3's session setup is always "
                                "signed, the data then goes unsigned).")
    encryption_cipher: str
    encryption_degree: str

    @property
    def signing(self) -> bool:
        """Every message signed, the data too: "partial" is the signed session setup alone."""
        return self.signing_degree == "full"

    @property
    def encryption(self) -> bool:
        return self.encryption_degree not in ("", "none")


def parse_smbstatus_session(text: str, client_address: str) -> SmbSession | None:
    """The session from `client_address` in `smbstatus --json`, or None if it has none (yet)."""
    try:
        doc = json.loads(text[text.find("{"):]) if "{" in text else None
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"smbstatus printed broken JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise ToolOutputError(f"smbstatus printed no JSON: {text.strip()[:200] or '(nothing)'}")
    for session in (doc.get("sessions") or {}).values():
        if session.get("remote_machine") == client_address:
            sign, enc = session.get("signing") or {}, session.get("encryption") or {}
            return SmbSession(
                dialect=str(session.get("session_dialect", "?")),
                signing_cipher=str(sign.get("cipher", "-")), signing_degree=str(sign.get("degree", "none")),
                encryption_cipher=str(enc.get("cipher", "-")), encryption_degree=str(enc.get("degree", "none")),
            )
    return None


class LinkCounters(BaseModel):
    rx_bytes: int
    tx_bytes: int


def parse_cpu_ticks(text: str) -> int:
    """Sum of utime+stime+cutime+cstime over /proc/PID/stat lines (clock ticks). Children that ended
    are in their parent's cutime/cstime, so a per-client smbd that came and went is still counted."""
    total = 0
    for line in text.splitlines():
        _, sep, rest = line.rpartition(")")  # comm may contain spaces; fields follow the last ')'
        fields = rest.split()
        if not sep or len(fields) < 15:
            continue
        total += sum(int(f) for f in fields[11:15])  # fields 14-17 of stat(5), counted from state (3)
    return total


class SmbdProcess(BaseModel):
    pid: int
    ppid: int
    comm: str = Field(description="smbd, or a helper: smbd-notifyd, smbd-cleanupd ...")


def parse_smbd_processes(text: str, netns: str | None = None) -> list[SmbdProcess]:
    """`ps -e -o pid=,ppid=,netns=,comm=` (or without netns=: FreeBSD) -> smbd and its helpers, in network
    namespace ``netns`` (its inode number; None: in any). A process whose namespace ps could not read ("-") is
    kept: nothing says it is not."""
    found = []
    for line in text.splitlines():
        parts = line.split(None, 3 if netns is not None else 2)
        if len(parts) < 3 or not (parts[0].isdigit() and parts[1].isdigit()):
            continue
        comm = parts[-1].strip()
        if not comm.startswith("smbd") or (netns is not None and (len(parts) < 4 or parts[2] not in (netns, "-"))):
            continue
        found.append(SmbdProcess(pid=int(parts[0]), ppid=int(parts[1]), comm=comm))
    return sorted(found, key=lambda p: p.pid)


def parse_own_netns(text: str) -> str | None:
    """`readlink /proc/self/ns/net` ("net:[4026531833]") -> "4026531833", or None."""
    text = text.strip()
    if text.startswith("net:[") and text.endswith("]") and text[5:-1].isdigit():
        return text[5:-1]
    return None


def main_smbd(processes: list[SmbdProcess]) -> SmbdProcess | None:
    """The smbd the others were forked from (its per-client children and helpers share its configuration): an
    smbd whose parent is no smbd. PIDs wrap, so the lowest is not always it."""
    pids = {p.pid for p in processes}
    mains = [p for p in processes if p.comm == "smbd" and p.ppid not in pids]
    return mains[0] if mains else None


def smbd_processes_on(ctx: BenchContext, server: str) -> list[SmbdProcess]:
    """smbd and its helpers serving ``server``'s own network. On Linux only those in the network namespace
    tengig reads from: a Samba in a container on the NAS, or a second lab's NAS on the same machine, serves
    another network. Where ps has no netns column (FreeBSD), every smbd."""
    own = ctx.run(server, ["readlink", "/proc/self/ns/net"], timeout=10, check=False, record=False)
    netns = parse_own_netns(own.stdout) if own.returncode == 0 else None
    if netns is not None:
        ps = ctx.run(server, ["ps", "-e", "-o", "pid=,ppid=,netns=,comm="], timeout=10, check=False, record=False)
        if ps.returncode == 0:
            return parse_smbd_processes(ps.stdout, netns)
    ps = ctx.run(server, ["ps", "-e", "-o", "pid=,ppid=,comm="], timeout=10, record=False)
    return parse_smbd_processes(ps.stdout)


def main_smbd_on(ctx: BenchContext, server: str) -> SmbdProcess | None:
    """The main smbd serving ``server``'s own network (main_smbd of smbd_processes_on)."""
    return main_smbd(smbd_processes_on(ctx, server))


def smbd_ticks_on(ctx: BenchContext, server: str) -> int | None:
    """CPU clock ticks of every smbd process serving ``server``'s network (children that ended included)."""
    pids = [p.pid for p in smbd_processes_on(ctx, server)]
    if not pids:
        return None
    done = ctx.run(server, ["cat", *(f"/proc/{p}/stat" for p in pids)], timeout=10, check=False, record=False)
    return parse_cpu_ticks(done.stdout)


def cpu_percent(ticks: list[int], speeds: list[float], size: int, clk_tck: int) -> float | None:
    """smbd's CPU over the copies, % of one core: its ticks over the copies' transfer time."""
    if not ticks or len(ticks) != len(speeds):
        return None
    busy = sum(ticks) / clk_tck
    transfer = sum(size / s for s in speeds)
    return 100 * busy / transfer if transfer > 0 else None
