"""`python -m tests.bench.misbehaving_client URL TOKEN MODE`: tengig's own desktop client, changed to
misbehave as a broken or dishonest desktop would (for tests/bench/test_joined_lab.py).

MODE lie: multiplies the bytes in iperf3's JSON by 10 (more than the NAS's port carried).
MODE garbage: submits text that is not iperf3's output.
MODE escapes: submits iperf3 output that is terminal escapes (a title, a screen clear, a bidi override).
MODE vanish: exits without a word when asked for its first SMB copy (mid-run)."""
from __future__ import annotations

import json
import os
import sys

from tengig.desk.join import Joiner

ESCAPES = "\x1b]0;owned\x07\x1b[2J\u202egone\x9b31m"


class Misbehaving(Joiner):
    def __init__(self, *args, mode: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.mode = mode

    def _execute(self, kind, params):
        if self.mode == "vanish" and kind == "smb" and params.get("op") == "put":
            os._exit(3)
        result = super()._execute(kind, params)
        if kind == "iperf3" and self.mode == "garbage":
            result["stdout"] = "all good, 100 Gb/s"
        if kind == "iperf3" and self.mode == "escapes":
            result["stdout"] = f"{ESCAPES} all good"
        if kind == "iperf3" and self.mode == "lie" and result["exit_code"] == 0:
            doc = json.loads(result["stdout"])
            for key in ("sum_received", "sum_sent"):
                doc["end"][key]["bytes"] *= 10
                doc["end"][key]["bits_per_second"] *= 10
            result["stdout"] = json.dumps(doc)
        return result


if __name__ == "__main__":
    url, token, mode = sys.argv[1:4]
    extra = {"smb_auth_file": sys.argv[4], "smb_conf": sys.argv[5]} if len(sys.argv) > 5 else {}
    Misbehaving(url, token, mode=mode, name="desk", **extra).run()
