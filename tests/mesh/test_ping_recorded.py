"""iputils ping (tengig.ping) on recorded real output (tests/fixtures/ping, recorded by
scripts/record_parser_fixtures.py between two private namespaces): the ping and Don't-Fragment ping
mesh/verify.py runs, and ping_once, the probe a staged mesh or LAGG change waits on."""
from __future__ import annotations

import pytest

from tengig.mesh.verify import _ping
from tengig.ping import parse_ping, ping_once

from ..recorded import recorded

PING = recorded("ping")


def test_answered():
    done = PING["answered"]
    assert done.argv == ("ping", "-n", "-I", "rec-eth0", "-c", "3", "-i", "0.2", "-W", "1", "10.99.0.2")
    r = parse_ping(done.stdout)
    assert (r.sent, r.received) == (3, 3) and done.returncode == 0
    assert r.rtt_avg_ms == float(done.stdout.split("rtt min/avg/max/mdev = ")[1].split("/")[1])
    assert 0 < r.rtt_avg_ms < 10  # between two namespaces of one machine


@pytest.mark.parametrize("name, sent", [("df-1500", 2), ("df-9000", 2)])
def test_dont_fragment_at_the_mtu_gets_through(name, sent):
    r = parse_ping(PING[name].stdout)
    assert (r.sent, r.received) == (sent, sent) and r.rtt_avg_ms is not None and PING[name].returncode == 0


@pytest.mark.parametrize("name, sent, stderr", [
    ("ignored", 3, ""),                   # the far end ignores echo requests: a plain timeout
    ("no-neighbour", 3, ""),              # nobody at the address (ARP unanswered)
    ("df-too-big-for-own-mtu", 2, "ping: local error: message too long, mtu=1500"),  # "+2 errors" in the summary
    ("df-9000-peer-at-1500", 2, "ping: sendmsg: No buffer space available"),        # MTU mismatch on the cable
])
def test_no_answer_is_zero_received_not_none(name, sent, stderr):
    done = PING[name]
    r = parse_ping(done.stdout)
    assert (r.sent, r.received, r.rtt_avg_ms) == (sent, 0, None)
    assert done.returncode == 1 and "100% packet loss" in done.stdout and stderr in done.stderr


def test_own_mtu_error_counts_as_errors_in_the_summary():
    assert "2 packets transmitted, 0 received, +2 errors, 100% packet loss" in PING["df-too-big-for-own-mtu"].stdout


@pytest.mark.parametrize("name, stderr", [
    ("unreachable-network", "ping: connect: Network is unreachable"),
    ("missing-interface", "ping: SO_BINDTODEVICE rec-nosuch0: No such device"),
])
def test_ping_that_never_started_has_no_summary(name, stderr):
    done = PING[name]
    assert done.returncode == 2 and done.stdout == "" and stderr in done.stderr
    assert parse_ping(done.stdout) is None


def _replay(name):
    done = PING[name]

    def run(argv):
        assert tuple(argv) == done.argv, "ping_once's argv is the one recorded"
        return done
    return run


def test_ping_once_answered():
    ok, detail = ping_once(_replay("once-answered"), "rec-eth0", "10.99.0.2")
    assert ok and detail == f"{parse_ping(PING['once-answered'].stdout).rtt_avg_ms} ms"


def test_ping_once_no_reply():
    assert ping_once(_replay("once-no-neighbour"), "rec-eth0", "10.99.0.9") == (False, "no reply")


class _Ctx:
    """The one BenchContext method mesh/verify.py's _ping uses, answering from the recording."""

    def __init__(self, name):
        self.done = PING[name]

    def run(self, host, argv, *, timeout, check, tool):
        assert tuple(argv) == self.done.argv and tool == "ping" and not check
        return self.done


def test_verify_ping_and_df_ping():
    verify = ["-c", "3", "-i", "0.2", "-W", "1"]
    df = ["-c", "2", "-i", "0.2", "-W", "1", "-M", "do"]
    assert _ping(_Ctx("answered"), "h", "rec-eth0", "10.99.0.2", verify).received == 3
    assert _ping(_Ctx("df-9000"), "h", "rec-jumbo0", "10.99.9.2", [*df, "-s", "8972"]).received == 2
    mismatch = _ping(_Ctx("df-9000-peer-at-1500"), "h", "rec-jumbo0", "10.99.9.2", [*df, "-s", "8972"])
    assert mismatch.received == 0  # check_links: df_ok False, "MTU mismatch on the cable?"
    assert _ping(_Ctx("missing-interface"), "h", "rec-nosuch0", "10.99.0.2", verify) is None  # ping_ok False
