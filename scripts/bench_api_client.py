"""Run by the official TrueNAS client's own interpreter (truenas_api_client), for scripts/bench_api_ping.py:

    python bench_api_client.py '{"uri": ..., "username": ..., "key": ..., "mode": "speed"|"waits", ...}'

"sequential": core.ping calls/s on one connection (one call in flight); "pipelined": with a window of
background calls in flight; "get_methods": core.get_methods latency; "warm": a few of each, unmeasured. "waits": the latency of ``calls`` sequential
core.ping calls (what a well-behaved client waits while someone else abuses the server). One JSON line.
"""
from __future__ import annotations

import json
import statistics
import sys
import time

from truenas_api_client import Client


def log_in(c, spec: dict) -> None:
    answer = c.call("auth.login_ex", {"mechanism": "API_KEY_PLAIN", "username": spec["username"],
                                      "api_key": spec["key"]})
    assert answer["response_type"] == "SUCCESS", answer


def sequential(c, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        c.call("core.ping")
    return calls / (time.perf_counter() - started)


def pipelined(c, calls: int, window: int) -> float:
    started = time.perf_counter()
    done = 0
    while done < calls:
        batch = [c.call("core.ping", background=True, register_call=True) for _ in range(min(window, calls - done))]
        for call in batch:
            assert c.wait(call) == "pong"
            c._unregister_call(call)  # what call() does for a call it waited on itself
        done += len(batch)
    return calls / (time.perf_counter() - started)


def latencies(c, method: str, calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        started = time.perf_counter()
        c.call(method, timeout=600)
        out.append(time.perf_counter() - started)
    return out


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"median_ms": statistics.median(ordered) * 1e3, "p90_ms": ordered[int(len(ordered) * 0.9) - 1] * 1e3,
            "max_ms": ordered[-1] * 1e3, "n": len(ordered)}


def main() -> None:
    spec = json.loads(sys.argv[1])
    with Client(spec["uri"]) as c:
        log_in(c, spec)
        if spec["mode"] == "warm":
            sequential(c, spec["calls"])
            c.call("core.get_methods", timeout=600)
            out = {}
        elif spec["mode"] == "sequential":
            out = {"sequential": sequential(c, spec["calls"])}
        elif spec["mode"] == "pipelined":
            out = {"pipelined": pipelined(c, spec["calls"], spec["window"])}
        elif spec["mode"] == "get_methods":
            out = {"get_methods": summary(latencies(c, "core.get_methods", spec["calls"]))}
        else:
            out = {"ping": summary(latencies(c, "core.ping", spec["calls"]))}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
