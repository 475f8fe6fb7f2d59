"""What the kit's replay sends, and what the NAS must have received, on either API host (tengig serve here:
test_kit_replay.py; middlewared: tests/realmw/test_kit_replay_in_middlewared.py). The NAS side is
given as three calls (``post``, ``result``, ``end``) so the same conversation runs against both."""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from tengig import __version__
from tengig.join_protocol.lines import OWN_TIMER

from .kit_replay import KitConversation, join_info

FIX = Path(__file__).parent / "fixtures"
# What the kit prints or sends that ConvertTo-Json of 5.1 escapes (' < > & as \u0027 \u003c ...; controls;
# U+2028) beside what it leaves as it is (non-ASCII, sent as UTF-8: é 2 bytes, € 3, the emoji 4).
AWKWARD = "Ana's <desk> & \"NAS\" \\\\nas\\media\ttab\r\n\u00e9\u20ac\U0001F600\u2028\u0085\x01 "
NAME = "Ana's <desk> & Zo\u00eb"
SMALL_REMOTE = r"tengig-scratch-1764079200-3-s\desk"  # a client's directory in the run's scratch
SMALL_DIR = rf"\\10.250.12.1\media\{SMALL_REMOTE}\small-4096"  # the kit's UNC path of one size's files
# A mesh verify's peer rule (desk/peer_rule.py), each case: the address asked for, this desktop's IPv4 addresses
# with their prefixes. Run by the kit's C# under Mono (test_kit_csharp_mono.py) and under pwsh (kit/Peer.Tests.ps1).
PEER_CASES = [
    ("10.250.3.2", ["10.250.3.1/30", "192.168.1.20/24"]),  # the other end of its own mesh cable
    ("192.168.1.77", ["10.250.3.1/30", "192.168.1.20/24"]),  # its LAN, a /24
    ("10.250.3.3", ["10.250.3.1/30"]),  # the /30's broadcast address
    ("10.250.3.0", ["10.250.3.1/30"]),  # its network address
    ("10.250.4.1", ["10.250.4.0/31"]),  # a /31 has no network or broadcast address (RFC 3021)
    ("10.250.9.2", ["10.250.3.1/30", "192.168.1.20/24"]),  # a cable it does not have
    ("172.16.5.9", ["172.16.0.10/16"]),  # a /16: wider than any mesh link, refused
    ("8.8.8.8", ["10.250.3.1/30"]),  # the internet
    ("10.250.3.2", ["10.250.3.1/32", "127.0.0.1/8"]),  # a /32 attaches no subnet; loopback is too wide
    ("10.250.3.2", []),  # nothing readable: everything refused
]


def _log(name: str) -> str:
    text = (FIX / name).read_bytes().decode()
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("# "))


def results() -> list[dict[str, Any]]:
    """The submissions the replay makes, in the order of the instructions it takes: iperf3's JSON, a
    German robocopy log, a refusal (no output, an empty argv), the desktop's SMB channels (Get-SmbChannels'
    JSON), a long awkward text in many parts (its emoji at every offset, so slices fall beside and inside
    surrogate pairs), and a small-file write of 200 files (Invoke-SmallBatches' lines, in parts). ``asked``:
    the instruction the NAS posts for it (kind, params), iperf3's where none is given."""
    return [
        {"exit_code": 0, "stdout": (FIX / "iperf3-write-1-stream.json").read_text(), "stderr": "",
         "argv": [r"C:\Users\Ana's PC\iperf3.exe", "-c", "10.0.0.1", "-J"], "seconds": 1.04},
        {"exit_code": 1, "stdout": _log("robocopy-put-256MiB-de.txt"), "stderr": "",
         "argv": ["robocopy.exe", r"C:\Temp\put", r"\\nas\media\tengig-bench-1-1-desk", "f0.dat", "/J"],
         "seconds": 2.9, "cpu_seconds": 0.40625, "cpus": 8.0},  # robocopy's TotalProcessorTime, when asked
        {"exit_code": 2, "stderr": "refused: instruction.server: 'x' is not an IP address", "argv": []},
        {"exit_code": 0, "stdout": (FIX / "get-smbmultichannelconnection-two-nics.json").read_text().strip(), "stderr": "",
         "argv": ["Get-SmbMultichannelConnection", "-ServerName", "10.250.12.1"], "seconds": 0.2},
        {"exit_code": 0, "stdout": "".join(AWKWARD[:k] + "\U0001F600" for k in range(len(AWKWARD))) * 12,
         "stderr": AWKWARD * 40, "argv": ["tengig-copy", r"\\nas\media\f0.dat"], "seconds": 1e-05,
         "cpu_seconds": 1.5625e-05, "cpus": 2.0},  # 5.1 writes both as 1E-05 / 1.5625E-05; in every part
        {"exit_code": 0, "stdout": _log("kit-smallfiles-write-4KiB.txt"), "stderr": "",
         "argv": [OWN_TIMER, "write", SMALL_DIR], "seconds": 0.302679,
         "asked": ("smallfiles", {"op": "write", "server": "10.250.12.1", "share": "media", "size": 4096,
                                  "count": 200, "remote": SMALL_REMOTE})},
    ]


def expected(sent: dict[str, Any]) -> dict[str, Any]:
    """A submission as the NAS must hold it once its parts are put together (its tool's CPU: None when not sent)."""
    return {"exit_code": sent["exit_code"], "stdout": sent.get("stdout", ""), "stderr": sent.get("stderr", ""),
            "argv": sent.get("argv", []), "seconds": float(sent.get("seconds", 0.0)),
            "cpu_seconds": sent.get("cpu_seconds"), "cpus": sent.get("cpus")}


async def _desk(url: str, token: str, outcome: dict[str, Any]) -> None:
    async with aiohttp.ClientSession() as http, http.ws_connect(url, max_msg_size=0) as ws:
        kit = KitConversation(ws)
        outcome["joined"] = await kit.invoke("tengig.bench.session.join", [token, join_info(NAME, __version__)])
        outcome["parts"] = []
        todo = results()
        while True:
            instruction = await kit.invoke("tengig.bench.session.next", [10])
            if instruction is None:
                continue
            if instruction["kind"] in ("done", "abort"):
                outcome["end"] = instruction
                break
            outcome["parts"].append(await kit.submit(instruction["id"], todo[len(outcome["parts"])]))
        outcome["sent"] = kit.sent


def replay(url: str, token: str, *, post: Callable[[str, dict], int], result: Callable[[int], dict[str, Any]],
           end: Callable[[], None], joined: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The kit joins at ``url`` with ``token`` (a thread of its own); the NAS side posts one instruction
    per result() and takes each submission whole. Returns what both sides saw."""
    outcome: dict[str, Any] = {}
    desk = threading.Thread(target=lambda: asyncio.run(_desk(url, token, outcome)), daemon=True)
    desk.start()
    outcome["info"] = joined()
    outcome["received"] = []
    for sent in results():
        kind, params = sent.get("asked", ("iperf3", {"server": "127.0.0.1", "port": 5201}))
        outcome["received"].append(result(post(kind, params)))
    end()
    desk.join(60)
    assert not desk.is_alive() and "end" in outcome, outcome.keys()
    return outcome
