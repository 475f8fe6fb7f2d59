"""The SMB channels a Windows desktop holds to the NAS, as its kit submits them (pure parser): the rows of
`Get-SmbMultichannelConnection -ServerName NAS` (SmbShare module, MSFT_SmbMultichannelConnection), selected
properties, as ConvertTo-Json printed them: one row per channel the client may use, Selected true for those
it uses."""
from __future__ import annotations

import json

from pydantic import BaseModel, Field

from ...errors import ToolOutputError


class ClientChannels(BaseModel):
    channels: int = Field(description="Rows Windows uses (Selected), each one channel.")
    client_addresses: list[str] = Field(description="The desktop's addresses those channels leave from.")
    server_addresses: list[str] = Field(description="The NAS's addresses they reach.")
    rss_capable: bool | None = Field(description="Windows says the desktop's NIC is RSS-capable (several "
                                     "channels over one NIC); None: not said.")

    def text(self) -> str:
        rss = {True: ", its NIC RSS-capable", False: ", its NIC not RSS-capable", None: ""}[self.rss_capable]
        return (f"Get-SmbMultichannelConnection: {self.channels} channel(s), from {', '.join(self.client_addresses) or '?'} "
                f"to {', '.join(self.server_addresses) or '?'}{rss}")


def parse_multichannel_connections(text: str) -> ClientChannels:
    try:
        rows = json.loads(text) if text.strip() else []
    except json.JSONDecodeError as exc:
        raise ToolOutputError(f"Get-SmbMultichannelConnection's JSON is broken: {exc}") from exc
    rows = [rows] if isinstance(rows, dict) else rows
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ToolOutputError(f"Get-SmbMultichannelConnection printed no rows: {text.strip()[:200]!r}")
    used = [r for r in rows if r.get("Selected") is not False]
    rss = {r.get("ClientRSSCapable") for r in used if isinstance(r.get("ClientRSSCapable"), bool)}
    return ClientChannels(
        channels=len(used),
        client_addresses=sorted({str(r["ClientIpAddress"]) for r in used if r.get("ClientIpAddress")}),
        server_addresses=sorted({str(r["ServerIpAddress"]) for r in used if r.get("ServerIpAddress")}),
        rss_capable=(True in rss) if rss else None,
    )
