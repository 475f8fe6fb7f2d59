#!/usr/bin/env python3
"""The API host's speed, side by side with TrueNAS's real middlewared 25.10.6, measured with the same
official client (truenas_api_client from TrueNAS 25.10, in its own virtualenv and process):

- core.ping calls/s on one connection: sequential (one call in flight) and pipelined (a window of
  background calls in flight, at most the per-connection limit of 20);
- core.get_methods latency (median, p90);
- what a well-behaved client waits for core.ping while another client abuses the server: 100 queued
  core.get_methods, a client that never reads, 200 wrong logins, 300 idle sockets.

`tengig serve` runs as a subprocess; middlewared is built and started by tests/realmw (vendor snapshots;
without them only tengig's column is printed).

    .venv/bin/python scripts/bench_api_ping.py [--calls 5000] [--window 20] [--profile]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "middleware"), str(REPO)]

from tengig.server.apikeys import ApiKeyStore  # noqa: E402
from tests.server.rawws import RawWebsocket  # noqa: E402

CLIENT_SCRIPT = Path(__file__).resolve().parent / "bench_api_client.py"


@contextmanager
def tengig_serve(tmp: str, profile: bool) -> Iterator[dict]:
    env = dict(os.environ, TENGIG_DB=f"{tmp}/results.sqlite3", PYTHONPATH=str(REPO / "middleware"))
    key = ApiKeyStore(f"{tmp}/apikeys.sqlite3").create("bench")[1]
    argv = [sys.executable, "-m", "tengig.cli.main", "serve", "--port", "0", "--unix-socket", ""]
    if profile:
        argv = [sys.executable, "-m", "cProfile", "-o", f"{tmp}/serve.prof", *argv[1:]]
    server = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        if "serving on" not in line:
            raise SystemExit(f"tengig serve did not start: {line}")
        uri = line.split("serving on ")[1].split()[0]
        log = open(f"{tmp}/serve.log", "w")
        # its log (a warning per wrong login) must keep flowing, or the server blocks writing it
        threading.Thread(target=lambda: [log.write(text) for text in server.stderr], daemon=True).start()
        yield {"name": "tengig serve", "uri": uri, "username": "root", "key": key, "pid": server.pid}
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        if profile:
            import pstats

            print("\n--- tengig serve profile (cumulative, top 25) ---")
            pstats.Stats(f"{tmp}/serve.prof").sort_stats("tottime").print_stats(30)


@contextmanager
def real_middlewared(tmp: str) -> Iterator[dict | None]:
    try:
        from tests.realmw.conftest import TEST_API_KEY, TEST_USER, installer_for, started
        from tests.realmw.harness import middlewared_build, vendor_dir
    except ImportError as exc:
        print(f"middlewared: not measured ({exc})")
        yield None
        return
    if vendor_dir() is None:
        print("middlewared: not measured (TrueNAS's snapshots are not here; set TENGIG_VENDOR_DIR)")
        yield None
        return
    system = started(middlewared_build("25.10.6"), Path(tmp) / "truenas")
    try:
        installer_for(system).install()  # tengig's methods listed there too: the same get_methods
        yield {"name": "middlewared 25.10.6", "uri": f"ws://127.0.0.1:{system.port}/api/current",
               "username": TEST_USER, "key": TEST_API_KEY, "pid": system.pid()}
    finally:
        system.stop()


def official_python() -> Path:
    from tests.realmw.harness import middlewared_build

    return middlewared_build("25.10.6").python


def run_client(python: Path, target: dict, **spec) -> dict:
    done = subprocess.run([str(python), str(CLIENT_SCRIPT), json.dumps({**target, **spec})], capture_output=True,
                          text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"the official client failed against {target['name']}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- abusers (each runs in threads until stopped) -------------------------------------------------------------

def _host_port(uri: str) -> tuple[str, int]:
    netloc = uri.split("//", 1)[1].split("/", 1)[0]
    host, port = netloc.rsplit(":", 1)
    return host, int(port)


def queued_get_methods(target: dict, stop: threading.Event) -> None:
    """One logged-in client keeping 100 core.get_methods queued (reading the answers)."""
    host, port = _host_port(target["uri"])
    ws = RawWebsocket(host, port)
    ws.send({"jsonrpc": "2.0", "id": "login", "method": "auth.login_ex", "params": [
        {"mechanism": "API_KEY_PLAIN", "username": target["username"], "api_key": target["key"]}]})
    drain = threading.Thread(target=ws.closed_by_server, daemon=True)
    drain.start()
    i = 0
    try:
        while not stop.is_set():
            for _ in range(100):
                ws.call(i, "core.get_methods")
                i += 1
            stop.wait(0.5)
    except OSError:
        pass
    ws.close()


def never_reads(target: dict, stop: threading.Event) -> None:
    """A logged-in client asking for core.get_methods over and over, reading nothing."""
    host, port = _host_port(target["uri"])
    while not stop.is_set():
        try:
            ws = RawWebsocket(host, port, rcvbuf=4096)
            ws.send({"jsonrpc": "2.0", "id": "login", "method": "auth.login_ex", "params": [
                {"mechanism": "API_KEY_PLAIN", "username": target["username"], "api_key": target["key"]}]})
            i = 0
            while not stop.is_set():
                ws.call(i, "core.get_methods")
                i += 1
        except OSError:
            continue  # dropped: come back


def wrong_logins(target: dict, stop: threading.Event) -> None:
    """200 connections at a time, each trying a wrong key (a real key id: the server must hash)."""
    host, port = _host_port(target["uri"])
    key_id = target["key"].split("-", 1)[0]
    n = 0
    while not stop.is_set():
        clients = []
        for _ in range(200):
            try:
                ws = RawWebsocket(host, port)
                ws.send({"jsonrpc": "2.0", "id": 1, "method": "auth.login_ex", "params": [
                    {"mechanism": "API_KEY_PLAIN", "username": target["username"],
                     "api_key": f"{key_id}-{'W' * 56}{n:08d}"}]})
                n += 1
                clients.append(ws)
            except OSError:
                break
        for ws in clients:
            try:
                ws.sock.settimeout(60)
                ws.sock.recv(4096)
            except OSError:
                pass
            ws.close()


def idle_sockets(target: dict, stop: threading.Event) -> None:
    """300 sockets that connect and send nothing, replaced as the server closes them."""
    host, port = _host_port(target["uri"])
    held: list[socket.socket] = []
    while not stop.is_set():
        while len(held) < 300:
            try:
                held.append(socket.create_connection((host, port), timeout=5))
            except OSError:
                break
        stop.wait(0.5)
        alive = []
        for sock in held:
            sock.setblocking(False)
            try:
                closed = sock.recv(1) == b""
            except BlockingIOError:
                closed = False
            except OSError:
                closed = True
            (sock.close() if closed else alive.append(sock))
        held = alive
    for sock in held:
        sock.close()


ABUSES: dict[str, Callable[[dict, threading.Event], None]] = {
    "100 queued core.get_methods": queued_get_methods,
    "a client that never reads": never_reads,
    "200 wrong logins at a time": wrong_logins,
    "300 idle sockets": idle_sockets,
}


def wait_under(python: Path, target: dict, abuse: Callable[[dict, threading.Event], None] | None,
               calls: int) -> dict:
    stop = threading.Event()
    thread = threading.Thread(target=abuse, args=(target, stop), daemon=True) if abuse else None
    if thread:
        thread.start()
        stop.wait(1.0)  # let it bite first
    try:
        return run_client(python, target, mode="waits", calls=calls)["ping"]
    finally:
        stop.set()
        if thread:
            thread.join(120)


def cpu_seconds(pid: int | None) -> float:
    """The process's user + system CPU time so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def speed(python: Path, target: dict, args: argparse.Namespace) -> dict:
    """Best of ``args.rounds`` runs of each measurement (the machine is shared: the best is the least
    disturbed), and the server's CPU time per sequential call."""
    run_client(python, target, mode="warm", calls=500)
    best: dict = {"sequential": 0.0, "pipelined": 0.0, "get_methods": None, "cpu_us_per_call": None}
    for _ in range(args.rounds):
        before = cpu_seconds(target["pid"])
        seq = run_client(python, target, mode="sequential", calls=args.calls)["sequential"]
        used = (cpu_seconds(target["pid"]) - before) / args.calls * 1e6
        best["sequential"] = max(best["sequential"], seq)
        best["cpu_us_per_call"] = used if best["cpu_us_per_call"] is None else min(best["cpu_us_per_call"], used)
        best["pipelined"] = max(best["pipelined"], run_client(python, target, mode="pipelined", calls=args.calls,
                                                              window=args.window)["pipelined"])
        latency = run_client(python, target, mode="get_methods", calls=args.get_methods_calls)["get_methods"]
        if best["get_methods"] is None or latency["median_ms"] < best["get_methods"]["median_ms"]:
            best["get_methods"] = latency
    return best


def rss_mib(pid: int | None) -> str:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, TypeError):
        return "?"
    peak = next(line for line in status.splitlines() if line.startswith("VmHWM"))
    return f"{int(peak.split()[1]) / 1024:,.0f} MiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--window", type=int, default=20, help="calls in flight when pipelining (server limit: 20)")
    parser.add_argument("--get-methods-calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="best of this many runs of each measurement")
    parser.add_argument("--wait-calls", type=int, default=200, help="pings measured under each abuse")
    parser.add_argument("--no-middlewared", action="store_true", help="tengig serve only")
    parser.add_argument("--profile", action="store_true", help="cProfile tengig serve and print its top functions")
    args = parser.parse_args()
    python = official_python()
    print(f"one connection each, official client truenas_api_client (TS-25.10.5), python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")
    rows: dict[str, dict] = {}
    waits: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory(prefix="tg-bench-") as tmp:
        with tengig_serve(tmp, args.profile) as tengig:
            rows[tengig["name"]] = speed(python, tengig, args)
            waits[tengig["name"]] = {"(no abuse)": wait_under(python, tengig, None, args.wait_calls)}
            for name, abuse in ABUSES.items():
                waits[tengig["name"]][name] = wait_under(python, tengig, abuse, args.wait_calls)
            waits[tengig["name"]]["peak RSS"] = rss_mib(tengig["pid"])
        if not args.no_middlewared:
            with real_middlewared(tmp) as middlewared:
                if middlewared is not None:
                    rows[middlewared["name"]] = speed(python, middlewared, args)
                    waits[middlewared["name"]] = {
                        "(no abuse)": wait_under(python, middlewared, None, args.wait_calls),
                        "100 queued core.get_methods": wait_under(python, middlewared, queued_get_methods,
                                                                  args.wait_calls)}
    names = list(rows)
    width = 24
    print(f"\n{'':38}" + "".join(f"{n:>{width}}" for n in names))
    print(f"{'core.ping sequential, calls/s':38}" + "".join(f"{rows[n]['sequential']:>{width},.0f}" for n in names))
    print(f"{f'core.ping pipelined (window {args.window}), calls/s':38}"
          + "".join(f"{rows[n]['pipelined']:>{width},.0f}" for n in names))
    print(f"{'server CPU per sequential call, µs':38}"
          + "".join(f"{rows[n]['cpu_us_per_call']:>{width},.0f}" for n in names))
    print(f"{'core.get_methods median / p90, ms':38}"
          + "".join(f"{rows[n]['get_methods']['median_ms']:>{width - 9},.1f} / {rows[n]['get_methods']['p90_ms']:>6,.1f}"
                    for n in names))
    print(f"\nwell-behaved client's core.ping wait under abuse (median / p90 / max, ms; {args.wait_calls} calls):")
    for server, table in waits.items():
        print(f"  {server}:")
        for name, value in table.items():
            if isinstance(value, dict):
                print(f"    {name:36} {value['median_ms']:8.2f} / {value['p90_ms']:8.2f} / {value['max_ms']:9.2f}")
            else:
                print(f"    {name:36} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
