"""What else the NAS is doing that a fix would change under, or that would muddle its re-measure (pure): SMB
sessions open now (the run's own ended with it, so each is someone else's, as far as smbstatus shows them) and
a scrub or resilver on the run's pool. A fix is refused while any is there, unless forced by name
(force_busy)."""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ToolOutputError

SCAN_RE = re.compile(r"^\s*scan:\s*((?:scrub|resilver)\w* in progress.*)$", re.MULTILINE)


def session_words(sessions: Iterable[Mapping[str, Any]]) -> list[str]:
    """'an SMB session of tgsmb from 10.250.12.2 (SMB3_11)' for each session smbstatus lists."""
    return [f"an SMB session of {s.get('username') or '?'} from {s.get('remote_machine') or '?'} "
            f"({s.get('session_dialect') or '?'})" for s in sessions]


def smbstatus_sessions(text: str) -> list[str]:
    """`smbstatus --json` -> session_words of every session it lists."""
    try:
        doc = json.loads(text[text.find("{"):]) if "{" in text else None
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"smbstatus printed broken JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise ToolOutputError(f"smbstatus printed no JSON: {text.strip()[:200] or '(nothing)'}")
    return session_words((doc.get("sessions") or {}).values())


def zpool_scan(pool: str, text: str) -> list[str]:
    """`zpool status POOL` -> 'a scrub on tgtank (scrub in progress since ...)' while one runs."""
    found = SCAN_RE.search(text)
    if found is None:
        return []
    what = found.group(1).split()[0]
    return [f"a {what} on {pool} ({found.group(1).strip()})"]


def pool_scan(pool: str, entry: Mapping[str, Any] | None) -> list[str]:
    """TrueNAS's pool.query entry -> the same words while its scan runs (scan.state SCANNING)."""
    scan = (entry or {}).get("scan") or {}
    if str(scan.get("state") or "").upper() != "SCANNING":
        return []
    what = str(scan.get("function") or "scan").lower()
    return [f"a {what} on {pool} (TrueNAS: {what} in progress, {scan.get('percentage') or 0:.0f}% done)"]


def busy_text(found: list[str]) -> str:
    return (f"the NAS is busy with {'; '.join(found)}: a fix now would change the setting under it and measure "
            "SMB beside it. Nothing changed: wait until it is done, or force it (force_busy: true, "
            "`tengig fix RUN --force-busy`)")
