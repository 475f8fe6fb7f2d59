"""What a lab test left running in the lab's own hosts: the machine runs other tests beside the lab's (the
rest stream starts iperf3 in namespaces of its own), so a machine-wide `pgrep iperf3` would blame them."""
from __future__ import annotations

from pathlib import Path


def in_lab_hosts(lab, program: str) -> list[str]:
    """``program``'s processes in the lab's network namespaces, as 'pid (host): command line'."""
    found = []
    for host in lab.require_up().spec.hosts:
        pids = lab.runner.run(["ip", "netns", "pids", lab.netns(host)], timeout=5, check=False).stdout.split()
        for pid in pids:
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue  # it ended while we looked
            if argv and Path(argv[0].decode(errors="replace")).name == program:
                found.append(f"{pid} ({host}): {b' '.join(argv).decode(errors='replace').strip()}")
    return found
