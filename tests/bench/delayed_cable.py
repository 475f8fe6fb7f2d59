"""A hidden round-trip delay on one end of a lab cable, added at that machine as a person would add one with
`tc qdisc add dev eth0 root netem delay 2ms`. This machine's kernel has no netem (the lab's notes), so the
delay is a small program on the host's end instead: the host's packets towards its peer are routed into a
TUN device, held DELAY ms each in arrival order, then sent out of the host's own port to the peer's MAC
(through the port's shaper, as any packet it sends); the peer's packets come back over the cable as before.
Every round trip between the two, TCP's and ping's alike, is DELAY longer; bandwidth is not touched.

Run as a program inside the host's network namespace (``delayed(lab, ...)`` starts it there)."""
from __future__ import annotations

import argparse
import collections
import contextlib
import fcntl
import json
import os
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

TUN = "tgdelay0"
TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000


def relay(port: str, src_mac: str, dst_mac: str, delay_s: float) -> None:
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", TUN.encode(), IFF_TUN | IFF_NO_PI))
    out = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    out.bind((port, 0))
    head = bytes.fromhex(dst_mac.replace(":", "")) + bytes.fromhex(src_mac.replace(":", ""))
    queue: collections.deque[tuple[float, bytes]] = collections.deque()
    ready = threading.Condition()

    def send() -> None:
        while True:
            with ready:
                while not queue:
                    ready.wait()
                due, packet = queue.popleft()
            if (wait := due - time.monotonic()) > 0:
                time.sleep(wait)
            kind = b"\x86\xdd" if packet[0] >> 4 == 6 else b"\x08\x00"
            out.send(head + kind + packet)

    threading.Thread(target=send, daemon=True).start()
    print(f"{TUN}: each packet towards {dst_mac} held {delay_s * 1000:g} ms", flush=True)
    while True:
        packet = os.read(fd, 65536)
        with ready:
            queue.append((time.monotonic() + delay_s, packet))
            ready.notify()


def _mac(lab, host: str, port: str) -> str:
    return json.loads(lab.run(host, ["ip", "-j", "link", "show", "dev", port], timeout=10).stdout)[0]["address"]


@contextlib.contextmanager
def delayed(lab, host: str, peer: str, delay_ms: float) -> Iterator[None]:
    """``host``'s packets to ``peer`` over their cable held ``delay_ms`` each, while the block runs."""
    plan = lab.plan()
    port, peer_port = f"eth-{peer}", f"eth-{host}"
    mine, theirs = plan.address_of(host, peer), plan.address_of(peer, host)
    mtu = plan.cable(host, peer).mtu
    argv = [sys.executable, str(Path(__file__).resolve()), port, _mac(lab, host, port), _mac(lab, peer, peer_port),
            str(delay_ms)]
    proc = lab.spawn(host, argv, log_name=f"delayed-cable-{host}.log")
    try:
        deadline = time.monotonic() + 10
        while lab.run(host, ["ip", "link", "show", "dev", TUN], timeout=10, check=False).returncode != 0:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((lab.paths.logs / f"delayed-cable-{host}.log").read_text())
            time.sleep(0.05)
        for argv in (["ip", "link", "set", TUN, "up", "mtu", str(mtu)],
                     ["sysctl", "-q", "-w", "net.ipv4.conf.all.rp_filter=0", f"net.ipv4.conf.{port}.rp_filter=0"],
                     ["ip", "route", "replace", f"{theirs}/32", "dev", TUN, "src", mine]):
            lab.run(host, argv, timeout=10)
        yield
    finally:
        lab.run(host, ["ip", "route", "del", f"{theirs}/32", "dev", TUN], timeout=10, check=False)
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    args = argparse.ArgumentParser()
    for name in ("port", "src_mac", "dst_mac", "delay_ms"):
        args.add_argument(name)
    a = args.parse_args()
    relay(a.port, a.src_mac, a.dst_mac, float(a.delay_ms) / 1000)
