"""A mesh verify's cable between two desktops, one of them joined from Windows (mesh/peer_cable.py): the NAS
asks the other end to serve and the Windows end only to connect, both ways, and takes the figures when the
server's report agrees. The two desktops here answer the NAS's instructions in-process with real iperf3 on
loopback (the plan's addresses are asserted in each instruction, then stood in for by 127.0.0.1: this
machine holds none of them; the lab measures real cables in tests/lab/test_joined_verify_lab.py)."""
from __future__ import annotations

import shutil
import socket
import threading

import pytest

from tengig.bench.context import BenchContext
from tengig.bench.join.session import SessionRegistry
from tengig.join_protocol.messages import JoinInfo, Submission
from tengig.desk.peer_server import PeerServer, connect
from tengig.mesh import plan_mesh
from tengig.runner import Runner

from .layouts import lab_hosts

pytestmark = pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed")


def _free_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return free.getsockname()[1]


def _desktop(session, client, asked: list, stop: threading.Event, port: int) -> None:
    """Answers each instruction as tengig client join would, on loopback."""
    runner, server = Runner(), PeerServer(Runner())
    while not stop.is_set():
        instruction = session.next(client)
        if instruction is None:
            stop.wait(0.02)
            continue
        if instruction.kind in ("done", "abort"):
            return
        params = instruction.params
        asked.append((client.name, params["op"], params.get("bind") or params.get("server")))
        if params["op"] == "listen":
            argv = ["iperf3", "-s", "-1", "-J", "-B", "127.0.0.1", "-p", str(port)]
            answer = server.listen(argv, port, params["seconds"] + params["omit"] + 30)
        elif params["op"] == "served":
            answer = server.served(port)
        else:
            argv = ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(params["seconds"]), "-O",
                    str(params["omit"]), "-P", str(params["streams"]), "-J"] + (["-R"] if params["reverse"] else [])
            answer = connect(lambda a: _run(runner, a), argv)
        session.submit(client, Submission(instruction=instruction.id, exit_code=answer["exit_code"],
                                          stdout=answer.get("stdout", ""), stderr=answer.get("stderr", ""),
                                          argv=answer["argv"]))
    server.stop()


def _run(runner, argv):
    done = runner.run(argv, timeout=60, check=False)
    return {"exit_code": done.returncode, "stdout": done.stdout, "argv": argv}


def test_the_windows_end_connects_and_the_other_end_serves_both_ways():
    from tengig.mesh.peer_cable import measure_peer_cable

    plan = plan_mesh(lab_hosts())
    [cable] = [c for c in plan.cables if "nas" not in (c.a.host, c.b.host)]
    assert cable.a.host == "desk"  # the end that serves by default: here the one that joined from Windows
    registry = SessionRegistry()
    session, _ = registry.create(2, join_timeout=10)
    desk = session.join(JoinInfo(hostname="desk", os="windows"), peer="10.0.0.2", local="10.0.0.1")
    lab = session.join(JoinInfo(hostname="lab", os="linux"), peer="10.0.0.3", local="10.0.0.1")
    asked: list = []
    stop = threading.Event()
    port = _free_port()
    threads = [threading.Thread(target=_desktop, args=(session, c, asked, stop, port), daemon=True) for c in (desk, lab)]
    for t in threads:
        t.start()
    try:
        rows = measure_peer_cable(BenchContext(hosts=None), session, cable, {"desk": desk, "lab": lab},
                                  seconds=1, omit=0, min_percent=0)
    finally:
        stop.set()
        session.end("finished")
        for t in threads:
            t.join(10)
    # the Windows end only ever connected, to lab's address of the cable; lab served there
    assert {name for name, op, _ in asked if op == "connect"} == {"desk"}
    assert {name for name, op, _ in asked if op in ("listen", "served")} == {"lab"}
    assert {address for name, op, address in asked if op in ("listen", "connect")} == {cable.b.address.split("/")[0]}
    assert [(r.sender, r.receiver) for r in rows] == [("desk", "lab"), ("lab", "desk")]
    assert all(r.received_bytes > 0 and "lab's iperf3 server" in r.witness for r in rows)
