"""The raw tools the benchmark scripts compare tengig with, run on the lab with no tengig code in the
measurement (scripts/bench_joined.py)."""
from __future__ import annotations

import json
import time

RAW_IPERF3_PORT = 5299


def raw_iperf3(lab, server: str, client: str, address: str, seconds: int, *, omit: int = 1,
               bind: str | None = None, reverse: bool = False) -> float:
    """`iperf3 -c` from ``client`` to a one-off `iperf3 -s` on ``server`` at ``address`` -> receiver bits/s
    (``reverse``: the server sends, `-R`)."""
    argv = ["iperf3", "-s", "-1", "-B", address, "-p", str(RAW_IPERF3_PORT)]
    listener = lab.spawn(server, argv, log_name="raw-iperf3.log")
    try:
        time.sleep(0.5)
        argv = ["iperf3", "-c", address, *(["-B", bind] if bind else []), "-p", str(RAW_IPERF3_PORT),
                "-t", str(seconds), "-O", str(omit), "-J", *(["-R"] if reverse else [])]
        done = lab.run(client, argv, timeout=seconds + 30)
        doc = json.loads(done.stdout)
        if doc.get("error"):
            raise SystemExit(f"raw iperf3 failed: {doc['error']}")
        return doc["end"]["sum_received"]["bits_per_second"]
    finally:
        listener.terminate()
        listener.wait(timeout=10)
