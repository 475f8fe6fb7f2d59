"""What a NAS may ask a desktop to do towards another desktop (desk/peer_rule.py): only an address on a
subnet of /24 or narrower one of its own interfaces is directly attached to, only on tengig's iperf3 ports,
for a bounded time; anything else refused naming the field, before any program runs. Then the mechanism
itself on loopback: a one-test server, a client that waits for it, the server's report."""
import ipaddress
import shutil
import socket

import pytest

from tengig.desk.join import Joiner
from tengig.backends.linux.proc_route import parse_proc_route_attached
from tengig.join_protocol.limits import PEER_PORTS
from tengig.desk.peer_rule import connect_argv, listen_argv, parse_attached_ifconfig
from tengig.desk.peer_server import PeerServer, connect
from tengig.errors import ValidationError
from tengig.runner import Runner
from tengig.bench.parse.iperf3_parse import parse_iperf3_json, parse_iperf3_server

from .hostile_nas import wait_for

CABLE = ipaddress.IPv4Network("10.250.0.8/30")  # this desktop: .10, the other: .9
LAN = ipaddress.IPv4Network("192.168.0.0/16")  # a wide LAN: too wide to be a cable
ATTACHED = [CABLE, LAN]
CONNECT = {"op": "connect", "server": "10.250.0.9", "port": 5201, "streams": 1, "seconds": 1, "omit": 0,
           "reverse": True}
ROUTES = """Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth0\t0000A8C0\t00000000\t0001\t0\t0\t100\t0000FFFF\t0\t0\t0
eth-lab\t0800FA0A\t00000000\t0001\t0\t0\t0\tFCFFFFFF\t0\t0\t0
eth0\t0000000A\t0101A8C0\t0003\t0\t0\t0\t000000FF\t0\t0\t0
"""


def test_the_attached_subnets_are_the_routes_without_a_gateway():
    assert parse_proc_route_attached(ROUTES) == [LAN, CABLE]  # neither the default nor 10/8 via a router


def test_ifconfig_addresses_give_their_subnets():
    text = ("en0: flags=8863<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> mtu 1500\n"
            "\tinet 192.168.1.20 netmask 0xffffff00 broadcast 192.168.1.255\n"
            "\tinet 10.250.0.10 netmask 0xfffffffc broadcast 10.250.0.11\n"
            "lo0: flags=8049<UP,LOOPBACK,RUNNING,MULTICAST> mtu 16384\n"
            "\tinet 127.0.0.1 netmask 0xff000000\n")
    assert parse_attached_ifconfig(text) == [ipaddress.IPv4Network("192.168.1.0/24"), CABLE,
                                             ipaddress.IPv4Network("127.0.0.0/8")]


def test_connect_argv_on_its_own_cable():
    assert connect_argv(CONNECT, ATTACHED) == ["iperf3", "-c", "10.250.0.9", "-p", "5201", "-t", "1", "-O", "0",
                                               "-P", "1", "-J", "-R"]


@pytest.mark.parametrize("field,value,words", [
    ("server", "10.250.0.13", "directly attached"),  # the next /30: another cable, not this desktop's
    ("server", "8.8.8.8", "directly attached"),
    ("server", "192.168.4.7", "/24 or narrower"),  # on the LAN, but a /16 is no cable
    ("server", "10.250.0.11", "broadcast"),
    ("server", "10.250.0.8", "network"),
    ("server", "10.250.0.9; rm -rf /", "not an IPv4 address"),
    ("server", "fe80::1", "not an IPv4 address"),
    ("port", 22, "tengig's iperf3 ports"), ("port", PEER_PORTS[1] + 1, "tengig's iperf3 ports"),
    ("port", "5201", "whole number"),
    ("seconds", 0, "bound"), ("seconds", 61, "bound"), ("seconds", 1.5, "whole number"), ("seconds", True, "whole"),
    ("omit", 11, "bound"), ("streams", 17, "bound"),
])
def test_a_connect_off_its_cables_or_unbounded_is_refused_naming_the_field(field, value, words):
    with pytest.raises(ValidationError) as err:
        connect_argv({**CONNECT, field: value}, ATTACHED)
    assert err.value.errors[0][0] == f"instruction.{field}" and words in err.value.errors[0][1]


def test_it_listens_only_on_an_address_of_its_own():
    listen = {"op": "listen", "bind": "10.250.0.9", "port": 5201, "seconds": 1, "omit": 0}
    with pytest.raises(ValidationError) as err:
        listen_argv(listen, ATTACHED)  # on its cable, but the other end's address
    assert err.value.errors[0][0] == "instruction.bind" and "not an address of this desktop" in str(err.value)
    with pytest.raises(ValidationError) as err:
        listen_argv({**listen, "bind": "127.0.0.1"}, ATTACHED)  # its own, but on no cable of its
    assert err.value.errors[0][0] == "instruction.bind"
    with pytest.raises(ValidationError) as err:
        listen_argv({**listen, "bind": "127.0.0.1", "seconds": 3600}, [CABLE, ipaddress.IPv4Network("127.0.0.0/24")])
    assert err.value.errors[0][0] == "instruction.seconds"


def test_the_joiner_refuses_before_running_anything(tmp_path):
    class Refusing(Runner):
        def run(self, argv, **kw):
            raise AssertionError(f"ran {argv}")

        def spawn(self, argv, **kw):
            raise AssertionError(f"spawned {argv}")

    joiner = Joiner("ws://10.250.0.9:8610", "tgb-x", runner=Refusing(), say=lambda line: None, workdir=tmp_path)
    for params, field in (({**CONNECT, "server": "1.1.1.1"}, "instruction.server"),
                          ({"op": "listen", "bind": "1.1.1.1", "port": 5201, "seconds": 1, "omit": 0},
                           "instruction.bind"),
                          ({"op": "shell"}, "instruction.op")):
        answer = joiner._execute("peer", params)
        assert answer["exit_code"] == 2 and answer["stderr"].startswith("refused: ") and field in answer["stderr"]
    assert joiner._execute("peer", {"op": "served", "port": 5201})["exit_code"] == 2  # no server of its


@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed")
def test_a_one_test_server_and_a_client_that_waits_for_it(tmp_path):
    """The mechanism on loopback (the rule aside): the server's report proves the bytes the client counted."""
    runner = Runner()
    server = PeerServer(runner)
    with socket.socket() as free:  # the machine's loopback is shared: a port nothing else holds (the rule aside)
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    argv = ["iperf3", "-s", "-1", "-J", "-B", "127.0.0.1", "-p", str(port)]
    assert server.listen(argv, port, 30)["exit_code"] == 0
    try:
        client = connect(lambda a: _run(runner, a), ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", "1", "-J"])
        served = server.served(port)
    finally:
        server.stop()
    assert client["exit_code"] == 0 and served["exit_code"] == 0, (client, served)
    received = parse_iperf3_json(client["stdout"]).receiver_bytes
    assert received > 0 and parse_iperf3_server(served["stdout"]).bytes == pytest.approx(received, rel=0.02)
    assert server.served(port)["exit_code"] == 2  # one report per listen


def _run(runner, argv):
    done = runner.run(argv, timeout=30, check=False)
    return {"exit_code": done.returncode, "stdout": done.stdout}


def test_a_refused_connection_is_tried_again_a_bounded_number_of_times(monkeypatch):
    import tengig.desk.peer_server as peer_server
    monkeypatch.setattr(peer_server, "CONNECT_PAUSE_S", 0)
    calls = []
    refused = {"exit_code": 1, "stdout": '{"error": "unable to connect to server: Connection refused"}'}
    assert connect(lambda a: calls.append(a) or refused, ["iperf3"]) == refused
    assert len(calls) == peer_server.CONNECT_TRIES
    calls.clear()
    other = {"exit_code": 1, "stdout": '{"error": "unable to connect to server: No route to host"}'}
    assert connect(lambda a: calls.append(a) or other, ["iperf3"]) == other and len(calls) == 1


@pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 is not installed")
def test_a_refusal_iperf3_reports_with_exit_code_0_is_tried_again(monkeypatch):
    """Debian's iperf3 3.12 with -J exits 0 when the server refuses the connection (the error is a key of
    its JSON): the retry reads its words, so a server that starts a moment late is still reached."""
    import tengig.desk.peer_server as peer_server
    monkeypatch.setattr(peer_server, "CONNECT_TRIES", 3)
    monkeypatch.setattr(peer_server, "CONNECT_PAUSE_S", 0)
    runner = Runner()
    with socket.socket() as free:  # bound, never listening: the kernel refuses connections to it
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
        calls = []
        result = connect(lambda a: calls.append(a) or _run(runner, a),
                         ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", "1", "-J"])
    assert len(calls) == 3 and peer_server.REFUSED in result["stdout"], result


def test_a_one_test_server_is_stopped_at_its_deadline_while_the_desktop_waits_elsewhere():
    """At the deadline the desktop may be waiting on a NAS that fell silent: the server ends then all the same
    (README: stopped 30 s after its test at the latest), and its report says it served no test in time."""
    server = PeerServer(Runner())
    server.listen(["sleep", "60"], 5201, 0.5)  # a server nobody connects to
    proc = server.proc
    try:
        wait_for(lambda: proc.poll() is not None, "the server stopped at its deadline", limit=30)
        assert server.served(5201) == {"exit_code": 124, "argv": ["sleep", "60"],
                                       "stderr": "the iperf3 server served no test before its deadline"}
        assert server.proc is None
    finally:
        server.stop()


def test_a_wait_for_the_servers_report_that_is_interrupted_leaves_the_server_to_stop():
    """A stop signal's exception while the desktop waits for the report: the server is still the desktop's
    to stop (its cleanup does), not running on by itself."""
    server = PeerServer(Runner())
    server.listen(["sleep", "60"], 5201, 60)
    proc = server.proc

    class Interrupted(BaseException):
        pass

    def interrupted(*_, **__):
        raise Interrupted()
    proc.communicate = interrupted
    with pytest.raises(Interrupted):
        server.served(5201)
    assert server.proc is proc
    del proc.communicate
    server.stop()
    assert proc.poll() is not None and server.proc is None
