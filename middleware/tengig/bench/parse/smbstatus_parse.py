"""SMB multichannel as Samba reports it (pure parsers): whether the server offers it (`testparm -s
--parameter-name="server multichannel support"` prints Yes or No), and the channels each session of a
client holds in `smbstatus --json` (Samba 4.18 and later list them under each session's "channels"; 4.17
and earlier list none: unknown, not one)."""
from __future__ import annotations

import json

from pydantic import BaseModel, Field

from ...errors import ToolOutputError


class SmbChannel(BaseModel):
    channel_id: str
    local_address: str = Field(description="The NAS's end as Samba prints it, e.g. 'ipv4:10.0.0.1:445'.")
    remote_address: str = Field(description="The client's end, e.g. 'ipv4:10.0.0.2:50012'.")


class SessionChannels(BaseModel):
    session_id: str
    channels: list[SmbChannel] | None = Field(description="The session's channels; None: this Samba lists none "
                                              "(before 4.18).")

    @property
    def nas_addresses(self) -> list[str]:
        """The NAS's distinct addresses the channels reached (without the port)."""
        return sorted({c.local_address.rsplit(":", 1)[0].split(":", 1)[-1] for c in self.channels or []})


def parse_multichannel_setting(text: str) -> bool:
    """`testparm -s --parameter-name="server multichannel support"` -> True/False."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    value = lines[-1].lower() if lines else ""
    if value in ("yes", "true", "1", "on"):
        return True
    if value in ("no", "false", "0", "off"):
        return False
    raise ToolOutputError(f"testparm printed no 'server multichannel support' value: {text.strip()[:200]!r}")


def _document(text: str) -> dict:
    try:
        doc = json.loads(text[text.find("{"):]) if "{" in text else None
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"smbstatus printed broken JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise ToolOutputError(f"smbstatus printed no JSON: {text.strip()[:200] or '(nothing)'}")
    return doc


def parse_session_channels(text: str, client_address: str) -> list[SessionChannels]:
    """Each session of ``client_address`` in `smbstatus --json` with its channels (none: no session yet)."""
    out = []
    for key, session in (_document(text).get("sessions") or {}).items():
        if not isinstance(session, dict) or session.get("remote_machine") != client_address:
            continue
        listed = session.get("channels")
        channels = None
        if isinstance(listed, dict):
            channels = [SmbChannel(channel_id=str(c.get("channel_id", cid)), local_address=str(c.get("local_address", "")),
                                   remote_address=str(c.get("remote_address", "")))
                        for cid, c in listed.items() if isinstance(c, dict)]
        out.append(SessionChannels(session_id=str(session.get("session_id", key)), channels=channels))
    return out
