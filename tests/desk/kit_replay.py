"""The Windows kit's side of the join protocol, replayed frame by frame as Windows PowerShell 5.1 writes it
(no Windows here): each call is Format-Call's text (`ConvertTo-Json -Compress` of a Hashtable, ps51_json.py),
sent as one UTF-8 text message after Send-Message's check against the limit; a submission is cut as
Send-Submission cuts it (Get-Slice over UTF-16 code units, never half of a surrogate pair; the budget
halved while the whole message is over the limit, measured with the id of the next call), as
winkit/Protocol.ps1's Send-Submission does (run under pwsh by tests/desk/kit/Protocol.Tests.ps1, which cannot
show 5.1's ConvertTo-Json: this replay does)."""
from __future__ import annotations

import json
from typing import Any

import aiohttp

from tengig.desk.kit import FIRST_SLICE, MESSAGE_LIMIT

from .ps51_json import Utf16, convert_to_json, utf8


class Refused(Exception):
    """The NAS answered a call with an error (its message)."""


def format_call(call_id: int, method: str, params: list[Any]) -> str:
    """Format-Call: ConvertTo-Json of @{jsonrpc; id; method; params}. A Hashtable keeps no order; this
    one puts params first, so the hosts are shown to take any order."""
    return convert_to_json({"params": params, "method": method, "id": call_id, "jsonrpc": "2.0"})


def get_slice(text: Utf16, start: int, chars: int) -> Utf16:
    """Get-Slice: at most ``chars`` code units from ``start``, never ending inside a surrogate pair."""
    n = min(chars, len(text) - start)
    if n > 0 and start + n < len(text) and text.is_high_surrogate(start + n - 1):
        n = n - 1 if n > 1 else n + 1
    return text.substring(start, n)


class KitConversation:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws = ws
        self.call_id = 0
        self.sent: list[bytes] = []  # every message, as the bytes that went out

    async def invoke(self, method: str, params: list[Any], timeout: float = 60) -> Any:
        """Invoke-Nas: one call, its answer's result (Refused with the NAS's message on an error)."""
        self.call_id += 1
        text = format_call(self.call_id, method, params)
        data = utf8(text)
        assert len(data) <= MESSAGE_LIMIT, f"Send-Message would refuse {len(data)} bytes"
        await self.ws.send_frame(data, aiohttp.WSMsgType.TEXT)  # the very bytes, as the kit sends them
        self.sent.append(data)
        while True:
            message = await self.ws.receive(timeout=timeout)
            assert message.type == aiohttp.WSMsgType.TEXT, f"the NAS sent {message.type} {message.data!r}"
            answer = json.loads(message.data)
            if answer.get("id") != self.call_id:
                continue  # an event, not our answer
            if answer.get("error") is not None:
                raise Refused(answer["error"].get("message"))
            return answer.get("result")

    async def submit(self, instruction: int, result: dict[str, Any]) -> int:
        """Send-Submission: ``result`` (exit_code, stdout, stderr, argv, seconds, and cpu_seconds and cpus when
        asked for) in parts; how many."""
        stdout, stderr = Utf16.of(result.get("stdout", "")), Utf16.of(result.get("stderr", ""))
        argv = list(result.get("argv", []))
        seconds = float(result.get("seconds", 0.0))
        cpu = {"cpu_seconds": float(result["cpu_seconds"]), "cpus": float(result["cpus"])} if "cpus" in result else {}
        out_at = err_at = parts = 0
        while True:
            budget = FIRST_SLICE
            while True:
                out = get_slice(stdout, out_at, budget)
                err = get_slice(stderr, err_at, max(0, budget - len(out)))
                more = out_at + len(out) < len(stdout) or err_at + len(err) < len(stderr)
                part = {"instruction": instruction, "exit_code": int(result["exit_code"]), "stdout": out,
                        "stderr": err, "argv": argv, "seconds": seconds, "more": more, **cpu}
                text = format_call(self.call_id + 1, "tengig.bench.session.submit", [part])
                if len(utf8(text)) <= MESSAGE_LIMIT or budget <= 1:
                    break
                budget //= 2
            await self.invoke("tengig.bench.session.submit", [part])
            parts += 1
            out_at += len(out)
            err_at += len(err)
            if not more:
                return parts


def join_info(name: str, kit_version: str, *, smb: bool = True, disk: bool = False, interface: str | None = "Ethernet 2",
              mtu: int | None = 1500, speed_bps: int | None = 10**9) -> dict[str, Any]:
    """Get-JoinInfo's [ordered] table: hostname, os, tengig, smb, disk (with -Disk only), then what it could
    read of the link."""
    info: dict[str, Any] = {"hostname": name, "os": "windows", "tengig": f"kit {kit_version}", "smb": smb}
    if disk:
        info["disk"] = True
    for key, value in (("interface", interface), ("mtu", mtu), ("speed_bps", speed_bps)):
        if value is not None:
            info[key] = value
    return info
