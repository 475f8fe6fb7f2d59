"""Run one program in a bonding lab VM, as if it ran here: `agent_call.py ADDRESS PORT [--env K=V]... -- ARGV`
sends ARGV to the VM's agent (guest_agent.py), prints what the program printed (stdout, stderr) and exits
with its exit code. Stopping this process (TERM, a timeout) closes the connection, and the agent stops the
program in the VM. Started inside the VM lab's network namespace (vm/hosts.py), standard library only."""
from __future__ import annotations

import json
import socket
import sys

CONNECT_TIMEOUT_S = 5


def main(args: list[str]) -> int:
    split = args.index("--")
    address, port, options, argv = args[0], int(args[1]), args[2:split], args[split + 1:]
    env = dict(o.removeprefix("--env=").split("=", 1) for o in options if o.startswith("--env="))
    try:
        conn = socket.create_connection((address, port), timeout=CONNECT_TIMEOUT_S)
    except OSError as exc:
        print(f"tengig-vm: the VM's agent at {address}:{port} does not answer ({exc})", file=sys.stderr)
        return 255
    conn.settimeout(None)
    with conn:
        conn.sendall(json.dumps({"argv": argv, "env": env}).encode() + b"\n")
        data = conn.makefile("rb").readline()
    if not data:
        print(f"tengig-vm: the VM's agent at {address}:{port} closed the connection without an answer",
              file=sys.stderr)
        return 255
    answer = json.loads(data)
    sys.stdout.write(answer["stdout"])
    sys.stderr.write(answer["stderr"])
    return int(answer["rc"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
