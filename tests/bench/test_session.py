"""Bench sessions (bench/join/session.py) without a network: joins, instructions, submissions and every way a
client can go wrong, each with the error it must give."""
from __future__ import annotations

import contextlib
import gc
import threading
import tracemalloc

import pytest

from tengig.bench.join.session import SESSIONS, ClientGone, SessionEnded, SessionRegistry
from tengig.join_protocol.messages import JoinInfo, Submission
from tengig.errors import Aborted, ValidationError

INFO = JoinInfo(hostname="desk.example.lan", os="linux")


def _session(expected=1, join_timeout=5.0):
    registry = SessionRegistry()
    session, token = registry.create(expected, join_timeout=join_timeout)
    return registry, session, token


def test_the_token_finds_its_session_and_only_its_session():
    registry = SessionRegistry()
    a, token_a = registry.create(1, join_timeout=10)
    b, token_b = registry.create(1, join_timeout=10)
    assert registry.by_token(token_a) is a and registry.by_token(token_b) is b
    assert registry.by_token(token_a + "x") is None and registry.by_token("") is None
    assert token_a.startswith("tgb-") and len(token_a) == 52 and token_a != token_b


def test_an_instruction_round_trip():
    _, session, _ = _session()
    client = session.join(INFO, peer="10.0.0.2", local="10.0.0.1")
    assert client.name == "desk"
    iid = session.post(client, "iperf3", {"port": 5201})
    got = session.next(client)
    assert got.id == iid and got.kind == "iperf3" and session.next(client) is None
    session.submit(client, Submission(instruction=iid, exit_code=0, stdout="{}"))
    assert session.wait_result(client, iid, timeout=1, cancel=threading.Event()).stdout == "{}"


def test_a_late_joiner_is_told_why():
    _, session, _ = _session(expected=1)
    session.join(INFO, peer="a", local="b")
    with pytest.raises(SessionEnded, match="joined late"):
        session.join(JoinInfo(hostname="lab", os="linux"), peer="c", local="b")


def test_a_reused_token_of_an_ended_session_is_told_the_session_ended():
    registry, session, token = _session()
    session.end("finished")
    assert registry.by_token(token) is session  # still known for an hour: the client gets the reason
    with pytest.raises(SessionEnded, match="has ended \\(finished\\)"):
        session.join(INFO, peer="a", local="b")


def test_submissions_for_nothing_asked_or_twice_are_refused():
    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    with pytest.raises(ValidationError) as err:
        session.submit(client, Submission(instruction=7, exit_code=0))
    assert err.value.errors[0][0] == "submission.instruction"
    iid = session.post(client, "smb", {})
    session.submit(client, Submission(instruction=iid, exit_code=0))
    with pytest.raises(ValidationError, match="already answered"):
        session.submit(client, Submission(instruction=iid, exit_code=0))


def test_garbage_submissions_fail_validation():
    with pytest.raises(Exception):
        Submission(instruction=0, exit_code=0)
    with pytest.raises(Exception):
        Submission(instruction=1, exit_code=0, surprise=True)


def test_a_client_that_vanishes_fails_the_wait_at_once():
    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    iid = session.post(client, "iperf3", {})
    threading.Timer(0.2, session.gone, args=(client, "its connection closed")).start()
    with pytest.raises(ClientGone, match="left the run \\(its connection closed\\)"):
        session.wait_result(client, iid, timeout=30, cancel=threading.Event())
    with pytest.raises(ClientGone):
        session.post(client, "iperf3", {})


def test_a_client_that_never_answers_times_out_with_its_name():
    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    iid = session.post(client, "iperf3", {})
    with pytest.raises(ClientGone, match="desk did not answer within 0.3 s"):
        session.wait_result(client, iid, timeout=0.3, cancel=threading.Event())


def test_nobody_joins_then_the_wait_says_how_to_fix_it():
    _, session, _ = _session(expected=2, join_timeout=0.3)
    session.join(INFO, peer="a", local="b")
    with pytest.raises(ClientGone, match="for 2 client\\(s\\) to join; joined: desk"):
        session.wait_joined(threading.Event())


def test_an_abort_stops_the_wait_for_clients():
    _, session, _ = _session(join_timeout=30)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    with pytest.raises(Aborted):
        session.wait_joined(cancel)


def test_an_ended_session_tells_waiting_clients_why():
    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    session.end("the run on the NAS stopped: the pool is full")
    got = session.next(client)
    assert got.kind == "abort" and "pool is full" in got.params["reason"]
    _, other, _ = _session()
    c2 = other.join(INFO, peer="a", local="b")
    other.end("finished")
    assert other.next(c2).kind == "done"


def test_two_desktops_with_one_name_get_two_names():
    _, session, _ = _session(expected=2)
    a = session.join(INFO, peer="a", local="x")
    b = session.join(INFO, peer="b", local="x")
    assert (a.name, b.name) == ("desk", "desk-2")


def test_a_desktop_that_leaves_while_others_are_awaited_is_announced_as_gone():
    _, session, _ = _session(expected=2, join_timeout=0.6)
    seen = []
    desk = session.join(INFO, peer="a", local="b")
    threading.Timer(0.1, session.gone, (desk, "its connection closed")).start()
    with pytest.raises(ClientGone):
        session.wait_joined(threading.Event(), on_change=lambda clients, left: seen.append([c.gone for c in clients]))
    assert seen == [[None], ["its connection closed"]]


def test_the_start_barrier_queues_every_copy_at_once_and_notes_when_each_was_taken():
    _, session, _ = _session(expected=2)
    desk = session.join(INFO, peer="10.0.0.2", local="10.0.0.1")
    lab = session.join(JoinInfo(hostname="lab", os="linux"), peer="10.0.1.2", local="10.0.1.1")
    ids = session.post_all([(desk, "smb", {"op": "get"}), (lab, "smb", {"op": "get"})])
    assert len(set(ids)) == 2 and not desk.fetched and not lab.fetched
    assert session.next(lab).id == ids[1] and session.next(desk).id == ids[0]
    assert desk.fetched[ids[0]] >= lab.fetched[ids[1]]  # the NAS's clock: lab took its copy first
    session.gone(lab, "its connection closed")
    with pytest.raises(ClientGone, match="lab left the run"):  # no barrier with someone missing
        session.post_all([(desk, "smb", {}), (lab, "smb", {})])
    assert not desk.queue  # and nothing was queued for the one still there


def test_a_host_that_stops_with_the_run_waits_until_every_desktop_took_the_end():
    session, _ = SESSIONS.create(2, join_timeout=5)
    desk = session.join(JoinInfo(hostname="desk", os="linux"), peer="10.0.0.2", local="10.0.0.1")
    lab = session.join(JoinInfo(hostname="lab", os="linux"), peer="10.0.1.2", local="10.0.1.1")
    session.end("finished")
    assert SESSIONS.by_id(session.id) is session
    assert session.wait_told(0.2) is False  # nobody has polled yet
    assert session.next(desk).kind == "done"
    session.gone(lab, "its connection closed")  # one that left is not waited for
    assert session.wait_told(0.2) is True


# -- memory: what a desktop's parts may hold, and for how long (issue 23) ----------------------------------------

EMOJI = "\U0001F600"  # 4 bytes in UTF-8, and 4 in memory once a str holds one (UCS-4)
PART = EMOJI * 2000  # 8,000 bytes: about what one 8 KiB message carries


@contextlib.contextmanager
def _python_memory():
    """A function that says how many bytes of Python memory are allocated now, more than when the block
    began (tracemalloc: what Python holds, counted exactly; not the process's RSS)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]

        def now() -> int:
            gc.collect()
            return tracemalloc.get_traced_memory()[0] - base
        yield now
    finally:
        tracemalloc.stop()


def _parts(session, client, iid, count, text=PART):
    for _ in range(count):
        session.submit(client, Submission(instruction=iid, exit_code=0, stdout=text, more=True))


@pytest.mark.abuse
def test_a_desktops_parts_are_freed_when_its_connection_closes():
    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    iid = session.post(client, "iperf3", {})
    with _python_memory() as held:
        _parts(session, client, iid, 64)
        assert held() > 500_000  # 512,000 bytes while it sends
        session.gone(client, "its connection closed")
        assert held() < 16_000  # and freed when it leaves
    with pytest.raises(SessionEnded, match="already dropped"):
        _parts(session, client, iid, 1)


@pytest.mark.abuse
def test_parts_are_refused_after_the_run_ended_and_freed_with_it():
    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    iid = session.post(client, "iperf3", {})
    with _python_memory() as held:
        _parts(session, client, iid, 64)
        assert held() > 500_000
        session.end("the run on the NAS stopped: the pool is full")
        assert held() < 16_000
    with pytest.raises(SessionEnded, match="has ended"):
        _parts(session, client, iid, 1)
    with pytest.raises(SessionEnded, match="has ended"):
        session.submit(client, Submission(instruction=iid, exit_code=0))
    assert session.next(client).kind == "abort"  # what an ended session still answers


@pytest.mark.abuse
def test_an_answer_the_run_took_is_not_kept_by_the_session():
    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    iid = session.post(client, "iperf3", {})
    with _python_memory() as held:
        _parts(session, client, iid, 63)
        session.submit(client, Submission(instruction=iid, exit_code=0, stdout=PART))
        got = session.wait_result(client, iid, timeout=1, cancel=threading.Event())
        assert len(got.stdout) == 64 * len(PART) and held() > 500_000
        del got  # the run has it (and stores it); the session keeps no copy
        assert held() < 16_000
    with pytest.raises(ValidationError, match="already answered"):
        session.submit(client, Submission(instruction=iid, exit_code=0))


def _accepted_bytes(session, client, iid, most: int) -> tuple[int, Exception | None]:
    """Parts of PART sent until refused or ``most`` bytes were accepted -> (bytes accepted, the refusal)."""
    accepted = 0
    while accepted < most:
        try:
            _parts(session, client, iid, 1)
        except ValidationError as exc:
            return accepted, exc
        accepted += len(PART.encode())
    return accepted, None


@pytest.mark.abuse
def test_a_desktop_may_hold_at_most_its_share_of_bytes_in_parts_counted_in_utf8():
    from tengig.bench.join.session import PARTS_BYTES_PER_CLIENT

    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    first, second = session.post(client, "iperf3", {}), session.post(client, "smb", {})
    half, refused = _accepted_bytes(session, client, first, PARTS_BYTES_PER_CLIENT // 2)
    assert refused is None
    more, refused = _accepted_bytes(session, client, second, PARTS_BYTES_PER_CLIENT)  # both instructions together
    assert refused is not None and PARTS_BYTES_PER_CLIENT - len(PART.encode()) < half + more <= PARTS_BYTES_PER_CLIENT
    assert refused.errors[0][0] == "submission.stdout" and f"{PARTS_BYTES_PER_CLIENT} bytes" in refused.errors[0][1]
    assert session.held_bytes() == half  # the refused answer's parts are freed at once
    with pytest.raises(ClientGone, match="answer to instruction 2 was refused: .* bytes a desktop may"):
        session.wait_result(client, second, timeout=30, cancel=threading.Event())  # the run fails with why, now
    with pytest.raises(ValidationError, match="was refused"):
        _parts(session, client, second, 1)


@pytest.mark.abuse
def test_a_session_holds_at_most_its_bytes_in_parts_whatever_the_number_of_desktops():
    from tengig.bench.join.session import MAX_CLIENTS, PARTS_BYTES_PER_CLIENT, PARTS_BYTES_PER_SESSION

    assert PARTS_BYTES_PER_SESSION < MAX_CLIENTS * PARTS_BYTES_PER_CLIENT
    _, session, _ = _session(expected=MAX_CLIENTS)
    refusals = 0
    for n in range(MAX_CLIENTS):  # each stays under its own share
        client = session.join(JoinInfo(hostname=f"desk{n}", os="linux"), peer=f"10.0.0.{n}", local="10.0.0.254")
        _, refused = _accepted_bytes(session, client, session.post(client, "iperf3", {}),
                                     PARTS_BYTES_PER_CLIENT - len(PART.encode()))
        refusals += refused is not None and "a session may" in refused.errors[0][1]
    assert PARTS_BYTES_PER_SESSION - len(PART.encode()) < session.held_bytes() <= PARTS_BYTES_PER_SESSION
    assert refusals == MAX_CLIENTS - PARTS_BYTES_PER_SESSION // PARTS_BYTES_PER_CLIENT


@pytest.mark.abuse
def test_one_submission_is_bounded_in_bytes_not_characters():
    from tengig.join_protocol.messages import MAX_OUTPUT_BYTES

    _, session, _ = _session()
    client = session.join(INFO, peer="a", local="b")
    iid = session.post(client, "iperf3", {})
    with pytest.raises(ValidationError) as err:  # fewer characters than bytes allowed, more bytes
        session.submit(client, Submission(instruction=iid, exit_code=0, stdout=EMOJI * (MAX_OUTPUT_BYTES // 4 + 1)))
    assert err.value.errors[0][0] == "submission.stdout" and f"{MAX_OUTPUT_BYTES} bytes" in err.value.errors[0][1]


@pytest.mark.abuse
def test_a_desktops_numbers_must_be_finite_and_in_range():
    for bad in (float("inf"), float("nan"), -1.0, 1e9):
        with pytest.raises(Exception) as err:
            Submission(instruction=1, exit_code=0, seconds=bad)
        assert "seconds" in str(err.value)
    for field, bad in (("exit_code", 2**64), ("exit_code", -2**40), ("instruction", 10**400)):
        with pytest.raises(Exception, match=field):
            Submission(**{"instruction": 1, "exit_code": 0, field: bad})
    with pytest.raises(Exception, match="speed_bps"):
        JoinInfo(hostname="desk", os="linux", speed_bps=10**400)


def test_a_run_waiting_for_its_desktops_says_so_again_with_the_time_left(monkeypatch):
    """middlewared sends a job event only when its progress changes, and its own client (midclt call -j)
    drops the events that come before it knows the job's id: a run that said its join command once, at
    once, and then waited silently left that watcher without the token (CI: 120 s of nothing)."""
    import tengig.bench.join.session as session_module
    monkeypatch.setattr(session_module, "REANNOUNCE_S", 0.05)
    _, session, _ = _session(expected=1, join_timeout=0.4)
    said = []
    with pytest.raises(ClientGone):
        session.wait_joined(threading.Event(), on_change=lambda clients, left: said.append(left))
    assert len(said) >= 3 and said == sorted(said, reverse=True) and said[0] <= 0.4, said
