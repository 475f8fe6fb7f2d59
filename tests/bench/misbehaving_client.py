"""`python -m tests.bench.misbehaving_client URL TOKEN MODE`: tengig's own desktop client, changed to
misbehave as a broken or dishonest desktop would (for tests/bench/test_joined_lab.py).

MODE lie: multiplies the bytes in iperf3's JSON by 10 (more than the NAS's port carried).
MODE inflate: runs iperf3, then says it moved 1,000 bytes at 9.9 Tb/s (fewer bytes than the port carried).
MODE invent: runs no iperf3 at all and makes up its JSON: 1 byte at 9.9 Tb/s.
MODE garbage: submits text that is not iperf3's output.
MODE escapes: submits iperf3 output that is terminal escapes (a title, a screen clear, a bidi override).
MODE fastcopy: its SMB copies say they went 100 times faster than smbclient measured.
MODE instant: its SMB copies say the command took a millisecond.
MODE infinite: runs iperf3, then says it took an infinite time (sent as JSON's Infinity).
MODE vanish: exits without a word when asked for its first SMB copy (mid-run)."""
from __future__ import annotations

import json
import os
import re
import sys

from tengig.desk.instructions import iperf3_argv
from tengig.desk.join import Joiner

ESCAPES = "\x1b]0;owned\x07\x1b[2J\u202egone\x9b31m"
TERABITS = 9.9e12
SMB_RATE = re.compile(r"\(([\d.]+) (KiloBytes/sec|kb/s)\)")


def _claim(doc: dict, bytes_: int) -> None:
    for key in ("sum_received", "sum_sent"):
        doc["end"][key].update(bytes=bytes_, bits_per_second=TERABITS)


def _invented(params: dict) -> dict:
    """An iperf3 -J document for a test that never ran: the shape the NAS reads, 1 byte at 9.9 Tb/s."""
    test = {"num_streams": params["streams"], "reverse": int(bool(params.get("reverse"))), "omit": params["omit"]}
    sums = {"start": 0, "end": params["seconds"], "seconds": params["seconds"], "bytes": 1,
            "bits_per_second": TERABITS}
    doc = {"start": {"version": "iperf 3.12", "cookie": "x" * 36, "test_start": test},
           "end": {"sum_sent": {**sums, "retransmits": 0}, "sum_received": dict(sums)}}
    return {"exit_code": 0, "stdout": json.dumps(doc), "stderr": "", "argv": iperf3_argv(params, frozenset({params["server"]})),
            "seconds": params["seconds"] + params["omit"]}


class Misbehaving(Joiner):
    def __init__(self, *args, mode: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.mode = mode

    def _execute(self, kind, params):
        if self.mode == "vanish" and kind == "smb" and params.get("op") == "put":
            os._exit(3)
        if self.mode == "invent" and kind == "iperf3":
            return _invented(params)
        result = super()._execute(kind, params)
        if kind == "iperf3" and self.mode == "garbage":
            result["stdout"] = "all good, 100 Gb/s"
        if kind == "iperf3" and self.mode == "escapes":
            result["stdout"] = f"{ESCAPES} all good"
        if kind == "iperf3" and self.mode in ("lie", "inflate") and result["exit_code"] == 0:
            doc = json.loads(result["stdout"])
            if self.mode == "inflate":
                _claim(doc, 1000)
            for key in ("sum_received", "sum_sent") if self.mode == "lie" else ():
                doc["end"][key]["bytes"] *= 10
                doc["end"][key]["bits_per_second"] *= 10
            result["stdout"] = json.dumps(doc)
        if kind == "iperf3" and self.mode == "infinite":
            result["seconds"] = float("inf")
        copy = kind == "smb" and params.get("op") in ("get", "put")
        if copy and self.mode == "fastcopy":
            for key in ("stdout", "stderr"):
                result[key] = SMB_RATE.sub(lambda m: f"({float(m.group(1)) * 100:.1f} {m.group(2)})", result[key])
        if copy and self.mode == "instant":
            result["seconds"] = 0.001
        return result


if __name__ == "__main__":
    url, token, mode = sys.argv[1:4]
    extra = {"smb_auth_file": sys.argv[4], "smb_conf": sys.argv[5]} if len(sys.argv) > 5 else {}
    Misbehaving(url, token, mode=mode, name="desk", **extra).run()
