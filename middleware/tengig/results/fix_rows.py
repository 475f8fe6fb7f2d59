"""The fixes made from runs' verdicts (tengig/fix), kept beside the runs: each links the run it was made from
and the run that measured it again; the change, the value that puts it back and the judgement are its JSON
``data``. A part of ResultStore (store.py), sharing its connection and its checks."""
from __future__ import annotations

import errno
import time
from collections.abc import Mapping
from typing import Any

from ..errors import TengigError, ValidationError
from .reading import StoredValueError, stored_json


class FixRows:
    """ResultStore's fixes; the store gives _connect, _require_run and _dump_data (its checked JSON)."""

    FIX_STATES = ("applying", "kept", "rolled-back", "undone", "failed")

    def start_fix(self, run_id: int, name: str, data: Mapping[str, Any]) -> int:
        """Record a fix of ``run_id`` as 'applying' before the NAS is changed (``data``: the change and the value
        that puts it back), so a process that dies mid-way leaves the way back behind; its id."""
        doc = self._dump_data(data)
        with self._connect(write=True) as conn:
            self._require_run(conn, run_id)
            cur = conn.execute("INSERT INTO fixes (run_id, name, state, applied, data) VALUES (?, ?, 'applying', ?, ?)",
                               (run_id, name, time.time(), doc))
            return int(cur.lastrowid)

    def finish_fix(self, fix_id: int, state: str, data: Mapping[str, Any], after_run_id: int | None = None) -> None:
        """A fix's end (kept, rolled-back, failed) or its undo (undone), with what it found."""
        if state not in self.FIX_STATES[1:]:
            raise ValidationError.one("state", f"{state!r} ends no fix; use one of {', '.join(self.FIX_STATES[1:])}")
        doc = self._dump_data(data)
        with self._connect(write=True) as conn:
            if after_run_id is not None:
                self._require_run(conn, after_run_id)
            done = conn.execute("UPDATE fixes SET state = ?, finished = ?, data = ?, "
                                "after_run_id = COALESCE(?, after_run_id) WHERE id = ?",
                                (state, time.time(), doc, after_run_id, fix_id))
            if done.rowcount == 0:
                raise TengigError(f"fix {fix_id} not found", errno=errno.ENOENT)

    def fixes(self, run_id: int | None = None) -> list[dict[str, Any]]:
        """Fixes, newest first: all, or those made from ``run_id`` or measured by it. Each: id, run_id,
        after_run_id, name, state, applied, finished and data."""
        sql = "SELECT * FROM fixes" + (" WHERE run_id = ? OR after_run_id = ?" if run_id is not None else "")
        with self._connect(write=False) as conn:
            rows = conn.execute(sql + " ORDER BY id DESC", (run_id, run_id) if run_id is not None else ()).fetchall()
        out = []
        for r in rows:
            try:
                data = stored_json(r["data"])
            except StoredValueError as exc:
                raise TengigError(f"results database {self.path}: fix {r['id']}'s data {exc}") from None
            out.append({k: r[k] for k in ("id", "run_id", "after_run_id", "name", "state", "applied", "finished")}
                       | {"data": data})
        return out

