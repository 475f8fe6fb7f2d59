"""The Windows kit's messages, as Windows PowerShell 5.1 writes them (tests/desk/ps51_json.py, kit_replay.py),
against a real `tengig serve` on loopback: the join, the polls and submissions cut into parts of at most
8 KiB, each message the text ConvertTo-Json -Compress of 5.1 makes (' < > & as \\u0027 \\u003c \\u003e
\\u0026, non-ASCII as UTF-8, a double as 1E-05). The NAS holds each submission whole, character for
character, and reads the kit's small-file write as its small-file phase does. The same conversation runs
inside real middlewared: tests/realmw/test_kit_replay_in_middlewared.py."""
from __future__ import annotations

import threading

import pytest

from tengig.bench.join.joined_smallfiles import _parsed
from tengig.bench.join.session import SESSIONS, JoinedClient
from tengig.join_protocol.messages import JoinInfo, Submission
from tengig.join_protocol.naming import client_name
from tengig.bench.parse.smb_multichannel_parse import parse_multichannel_connections
from tengig.desk.kit import MESSAGE_LIMIT
from tengig.errors import ToolOutputError
from tests.server.harness import running_server

from .ps51_json import Utf16, convert_to_json, utf8
from .replay_cases import AWKWARD, NAME, SMALL_DIR, expected, replay, results


def test_convert_to_json_writes_what_windows_powershell_51_writes():
    # JavaScriptSerializer's escapes (HttpUtility.JavaScriptStringEncode) and Double.ToString("R")
    assert convert_to_json({"a": "it's <b> & c"}) == '{"a":"it\\u0027s \\u003cb\\u003e \\u0026 c"}'
    assert convert_to_json(["\u00e9\U0001F600", "\t\r\n\b\f\x01\\\"", "\u2028\u0085"]) == \
        '["\u00e9\U0001F600","\\t\\r\\n\\b\\f\\u0001\\\\\\"","\\u2028\\u0085"]'
    assert [convert_to_json(x) for x in (2.9, 0.0, 1e-05, 0.0001, 1.04, 1e15, 123.0, True, None, 7)] == \
        ["2.9", "0", "1E-05", "0.0001", "1.04", "1E+15", "123", "true", "null", "7"]
    assert utf8(convert_to_json(Utf16.of("\U0001F600").substring(0, 1))) == b'"\xef\xbf\xbd"'  # half a pair: U+FFFD


def test_the_kits_messages_as_windows_powershell_51_writes_them_are_taken_whole_by_tengig_serve(tmp_path):
    session, token = SESSIONS.create(1, join_timeout=30)
    joined_event = threading.Event()

    def joined():
        assert session.wait_joined(threading.Event()), "the kit did not join"
        joined_event.set()
        return session.clients[0].info.model_dump()

    def result(iid):
        return session.wait_result(session.clients[0], iid, timeout=30, cancel=threading.Event()).model_dump()

    try:
        with running_server(tmp_path) as srv:
            seen = replay(srv.url, token, post=lambda kind, params: session.post(session.clients[0], kind, params),
                          result=result, end=lambda: session.end("finished"), joined=joined)
    finally:
        session.end("finished")
    check_replay(seen)


def check_replay(seen: dict) -> None:
    """What a replay on either host must show."""
    assert seen["joined"]["name"] == client_name(NAME) and seen["info"]["hostname"] == NAME
    assert seen["info"]["interface"] == "Ethernet 2" and seen["info"]["os"] == "windows"
    assert seen["end"]["kind"] == "done"
    for got, sent in zip(seen["received"], results(), strict=True):
        assert {k: got[k] for k in ("exit_code", "stdout", "stderr", "argv", "seconds", "cpu_seconds", "cpus")} == expected(sent)
        assert got["more"] is False
    # the long ones went in parts, every message within the limit, and 5.1's escapes are on the wire
    assert seen["parts"][0] == 1 and seen["parts"][2] == 1 and seen["parts"][3] == 1 and seen["parts"][4] > 3, \
        seen["parts"]
    # the channels a Windows desktop listed reach the NAS as its parser reads them
    assert parse_multichannel_connections(seen["received"][3]["stdout"]).channels == 2
    # the kit's small-file write, in parts, reaches the NAS whole, and the NAS's phase reads it as its own
    # timer's (a batch with a file missing is refused, in words)
    assert seen["parts"][5] > 3 and seen["received"][5]["argv"][-1] == SMALL_DIR
    small = Submission.model_validate(seen["received"][5])
    desk = JoinedClient("desk", JoinInfo(hostname=NAME, os="windows"), peer="127.0.0.1", local="127.0.0.1")
    timing = _parsed(small, desk, "write", 200)
    assert timing.files == 200 and len(timing.opens) == len(timing.closes) == 200
    assert timing.seconds == pytest.approx(0.302678 - 0.001241)
    lines = small.stdout.split("\n")
    cut = small.model_copy(update={"stdout": "\n".join(lines[:5] + lines[6:])})
    with pytest.raises(ToolOutputError, match=r"desk: the desktop's write of small files handled 199 file\(s\), "
                                              r"the NAS asked for 200"):
        _parsed(cut, desk, "write", 200)
    frames = seen["sent"]
    assert max(len(f) for f in frames) <= MESSAGE_LIMIT
    wire = b"".join(frames)
    for escaped in (b"\\u0027", b"\\u003c", b"\\u003e", b"\\u0026", b"\\u2028", b"\\u0085", b"\\u0001", b"1E-05"):
        assert escaped in wire, escaped
    for raw in ("\u00e9", "\u20ac", "\U0001F600", "\u00dc"):
        assert raw.encode() in wire, raw
    assert AWKWARD.encode() not in wire  # nothing went unescaped
