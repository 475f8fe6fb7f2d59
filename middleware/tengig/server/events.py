"""Events to subscribed sessions: ``collection_update`` notifications, serialized once per event."""
from __future__ import annotations

from typing import Any

from .session import Session

# The events a session can subscribe to (besides "*", all of them).
EVENTS = {"core.get_jobs": "Jobs: ADDED when one is submitted, CHANGED on every state or progress change."}


class EventHub:
    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}

    def register(self, session: Session) -> None:
        self._sessions[session.id] = session

    def unregister(self, session: Session) -> None:
        self._sessions.pop(session.id, None)

    @property
    def sessions(self) -> list[Session]:
        return list(self._sessions.values())

    def publish(self, name: str, msg: str, item_id: Any, fields: dict[str, Any] | None) -> None:
        """Send one event to every session subscribed to ``name`` or to "*" (on the loop thread)."""
        listeners = [s for s in self._sessions.values() if s.wants(name)]
        if not listeners:
            return
        texts: dict[str, str] = {}  # one serialization per wire protocol (JSON-RPC 2.0, legacy)
        for session in listeners:
            if session.wire not in texts:
                texts[session.wire] = session.encode_event(msg, name, item_id, fields)
            session.send_text(texts[session.wire])
