"""The bonding lab VM's agent (docs/vm-lab.md): runs one program per TCP connection for the host and
answers with its exit code and output. Started by guest_init.sh as the VM's only long-running process,
listening on the VM's management port, which only the lab's own network namespace reaches.

One connection: the host sends one JSON line {"argv": [...], "env": {...}}; the agent runs argv (no
shell) and, when it ends, answers one JSON line {"rc": N, "stdout": "...", "stderr": "..."}. When the
host closes the connection first (its caller stopped the program, a timeout), the program is stopped:
TERM, then KILL after 5 s. Standard library only: it runs from the shared tree on the VM's python3."""
from __future__ import annotations

import json
import os
import select
import socketserver
import subprocess
import sys
import threading

STOP_WAIT_S = 5


def _read(stream, into: list[bytes]) -> None:
    into.append(stream.read())


class _Call(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        try:
            request = json.loads(self.rfile.readline())
            argv = [str(a) for a in request["argv"]]
            env = {**os.environ, **{str(k): str(v) for k, v in (request.get("env") or {}).items()}}
        except (ValueError, KeyError, TypeError) as exc:
            self._answer(2, "", f"tengig-vm agent: bad request ({exc})")
            return
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env, start_new_session=True)
        except OSError as exc:
            self._answer(127, "", f"tengig-vm agent: cannot run {argv[0]}: {exc}")
            return
        out: list[bytes] = []
        err: list[bytes] = []
        readers = [threading.Thread(target=_read, args=(proc.stdout, out), daemon=True),
                   threading.Thread(target=_read, args=(proc.stderr, err), daemon=True)]
        for t in readers:
            t.start()
        while proc.poll() is None:
            ready, _, _ = select.select([self.connection], [], [], 0.05)
            if ready and not self.connection.recv(1, 0):  # the host hung up: stop the program
                proc.terminate()
                try:
                    proc.wait(STOP_WAIT_S)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                return
        for t in readers:
            t.join()
        self._answer(proc.returncode, b"".join(out).decode(errors="replace"), b"".join(err).decode(errors="replace"))

    def _answer(self, rc: int, stdout: str, stderr: str) -> None:
        try:
            self.wfile.write(json.dumps({"rc": rc, "stdout": stdout, "stderr": stderr}).encode() + b"\n")
        except OSError:
            pass


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main() -> None:
    address, port = sys.argv[1], int(sys.argv[2])
    with _Server((address, port), _Call) as server:
        print(f"tengig-vm agent: listening on {address}:{port}", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
