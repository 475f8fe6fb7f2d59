"""Run one iperf3 test between two lab hosts (server started for this test only, one per port)."""
from __future__ import annotations

from tengig.bench.iperf3_parse import Iperf3Result, parse_iperf3_json
from tengig.lab import Lab


def iperf3_between(lab: Lab, client: str, server: str, *, seconds: int = 5, port: int = 5201) -> tuple[Iperf3Result, str]:
    addr = lab.plan().address_of(server, client)
    proc = lab.spawn(server, ["iperf3", "-s", "-1", "-B", addr, "-p", str(port)], log_name=f"iperf3-{server}-{port}.log")
    try:
        for _ in range(50):  # until the server listens
            if lab.run(server, ["ss", "-Hltn", f"sport = :{port}"], timeout=5).stdout.strip():
                break
        done = lab.run(client, ["iperf3", "-c", server, "-p", str(port), "-t", str(seconds), "-O", "1", "-J"],
                       timeout=seconds + 30, check=False)
        return parse_iperf3_json(done.stdout), done.stdout
    finally:
        proc.kill()
        proc.wait(timeout=10)
