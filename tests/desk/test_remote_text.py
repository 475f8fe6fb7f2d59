"""Text from another machine reaches a terminal only with its control characters escaped (C0, DEL, C1,
the bidi overrides): a desktop's interface name in the NAS's MTU advice, a desktop's tool output in the
NAS's errors, the NAS's words on the desktop. A desktop's interface name is an interface name or the
join is refused, naming the field. (The whole chain on the lab, one desktop's tool output reaching the
other desktop and `tengig bench`: tests/bench/test_remote_text_lab.py.)"""
from __future__ import annotations

import pytest
from pydantic import ValidationError as PydanticError

from tengig.bench.run.report_text import report_text
from tengig.bench.join.session import SESSIONS
from tengig.join_protocol.messages import JoinInfo
from tengig.bench.run.suite import BenchReport, ClientReport
from tengig.cli.main import main
from tengig.cli.progress import ProgressBar
from tengig.client.client import Client
from tengig.client.errors import ClientError
from tengig.text import shown
from tengig.verdict.judge import judge
from tengig.verdict.models import Facts
from tengig.verdict.targets import builtin_targets

from ..server.harness import running_server

pytestmark = pytest.mark.abuse

TITLE = "\x1b]0;owned\x07"  # OSC 0: sets the terminal's title
ALL = "a\x00b\x1b[2Jc\rd\ne\tf\x7fg\x85h\x9b31mi\u202ej\u2066k\u200fl\u061cm\u2028n"


def test_shown_escapes_c0_del_c1_and_bidi_controls():
    assert shown(ALL) == ("a\\x00b\\x1b[2Jc\\x0dd\\x0ae\\x09f\\x7fg\\x85h\\x9b31mi\\u202ej\\u2066k\\u200fl\\u061cm"
                          "\\u2028n")
    # several lines of text keep their line breaks and tabs, not their carriage returns
    assert shown(ALL, lines=True).startswith("a\\x00b\\x1b[2Jc\\x0dd\ne\tf\\x7fg")
    plain = "Ethernet 2 (x) ä € 以太网 C:\\Users\\ana"
    assert shown(plain) == plain and shown(shown(ALL)) == shown(ALL)


@pytest.mark.parametrize("name", ["eth0", "enp3s0f1", "wlp0s20f3", "br0.100", "en0", "bridge0", "utun3", "Ethernet",
                                  "Ethernet 2", "Wi-Fi", "vEthernet (Default Switch)", "Local Area Connection* 12",
                                  "LAN #2", "x" * 64])
def test_interface_names_of_linux_macos_and_windows_are_taken(name):
    assert JoinInfo(hostname="desk", os="linux", interface=name).interface == name


@pytest.mark.parametrize("name", [TITLE + "eth0", "eth0\n", "eth0\x9b", "eth0\u202e", "eth0 ", " eth0", "", "x" * 65,
                                  "eth0; rm", "'eth0'"])
def test_anything_else_as_an_interface_is_refused(name):
    with pytest.raises(PydanticError) as err:
        JoinInfo(hostname="desk", os="linux", interface=name)
    assert err.value.errors()[0]["loc"] == ("interface",)


def test_a_desktop_reporting_an_interface_with_a_title_escape_is_refused_at_join(tmp_path):
    session, token = SESSIONS.create(1, join_timeout=30)
    try:
        with running_server(tmp_path) as srv, Client(srv.url) as desk:
            with pytest.raises(ClientError) as refused:
                desk.call("tengig.bench.session.join", token, {"hostname": "desk", "os": "linux",
                                                                "interface": TITLE + "eth0", "mtu": 1500})
            assert "interface" in str(refused.value)
            assert session.clients == []
            joined = desk.call("tengig.bench.session.join", token, {"hostname": "desk", "os": "windows",
                                                                     "interface": "Ethernet 2", "mtu": 1500})
            assert joined["name"] == "desk" and session.clients[0].info.interface == "Ethernet 2"
    finally:
        session.end("finished")


def test_the_mtu_advice_tengig_bench_prints_shows_an_interface_name_escaped():
    """A stored run (or a host that took the name before it was checked): the report prints it escaped."""
    target = builtin_targets()[0]
    verdict = judge(target, [], Facts(link_negotiated_bps=10**9, mtus={"nas:eth0": 9000, f"desk:{TITLE}eth0\u202e": 1500}))
    assert any(TITLE in a.text for a in verdict.advice)  # the MTU advice names both ends
    text = report_text(BenchReport(system="local", kind="net", preset="quick", target=target.name,
                                   clients=[ClientReport(client="desk", verdict=verdict)]))
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "desk:\\x1b]0;owned\\x07eth0\\u202e 1500 bytes" in text


def test_an_error_printed_by_the_cli_shows_remote_text_escaped(tmp_path, capsys):
    """`tengig bench` prints a failed run's error (a desktop's tool output in it) through the CLI's one
    place for errors; here a server's error answer does the same."""
    with running_server(tmp_path) as srv:
        assert main(["call", "-u", srv.url, "-K", srv.api_key, "tengig.no_such" + TITLE]) != 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b]0;owned\\x07" in err, err


def test_a_progress_line_shows_remote_text_escaped(tmp_path):
    out = tmp_path / "progress.txt"
    with out.open("w") as stream:
        bar = ProgressBar("bench net", stream=stream)
        bar(50, f"iperf3 on desk: {TITLE}")
    assert out.read_text() == "bench net [##############--------------]  50.0% iperf3 on desk: \\x1b]0;owned\\x07\n"
