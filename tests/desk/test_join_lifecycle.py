"""How `tengig client join` ends: stopped by a signal (Ctrl-C, SIGTERM, a closed terminal's SIGHUP), by a NAS
that falls silent, or by one that answers `next` with null at once, the desktop leaves nothing behind (its
tools and its one-test iperf3 server stopped, its work file removed) and says why in one line, never a
traceback. The desktop is the real command, run as its own process against a stand-in NAS
(hostile_nas.py), on a cable of its own (desk_netns.py) where a peer server must listen."""
from __future__ import annotations

import signal
import socket
import time

import pytest

from tengig.desk import nas_pace
from tengig.desk.peer_rule import LISTEN_SLACK_S
from tengig.units import MiB

from .desk_netns import CABLE_ADDRESS, desk_netns
from .hostile_nas import REPO, SILENT, HostileNas, signal_and_wait, wait_for

NOISE = ("Traceback", "Task was destroyed", "Unclosed", "Exception ignored", "Error on reading")


@pytest.fixture
def cable():
    with desk_netns() as netns:
        yield netns


def _quiet(err: str) -> None:
    assert [word for word in NOISE if word in err] == [], err


def _accepted(listener: socket.socket, held: list[socket.socket]) -> bool:
    """Whether iperf3 connected; the connection is held open, and iperf3 waits for a server that never speaks:
    the tool hangs until stopped."""
    listener.settimeout(0.05)
    try:
        held.append(listener.accept()[0])
    except TimeoutError:
        return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_the_tools_and_removes_the_work_file(tmp_path, cable, signum):
    """The desktop holds a work file, serves another desktop's peer test and runs iperf3 towards a NAS port
    that accepted and said nothing: the signal stops all of it, the file goes, one line says why."""
    workdir, share = tmp_path / "work", tmp_path / "share"
    workdir.mkdir()
    share.mkdir()
    hung, held = cable.listening(), []
    prepare = {"op": "prepare", "server": CABLE_ADDRESS, "share": "share", "remote": "tengig-bench-1-1-desk",
               "size": 64 * MiB}
    listen = {"op": "listen", "bind": CABLE_ADDRESS, "port": 5201, "seconds": 1, "omit": 0}
    iperf3 = {"server": CABLE_ADDRESS, "port": hung.getsockname()[1], "streams": 1, "seconds": 1, "omit": 0,
              "reverse": False}
    with hung, HostileNas([("smb", prepare), ("peer", listen), ("iperf3", iperf3)],
                          nas_address=CABLE_ADDRESS, sock=cable.listening()) as nas:
        desk = nas.start("--mount", str(share), "--workdir", str(workdir), prefix=cable.prefix)
        wait_for(lambda: _accepted(hung, held), "iperf3 connecting to the NAS")
        assert list(workdir.glob("tengig-smb-*.dat")) != []
        assert any(cmd.startswith("iperf3 -s") for cmd in cable.processes()), cable.processes()
        code, err = signal_and_wait(desk, signum)
        left = cable.processes()  # while iperf3's connection is held: closing it would end a leftover iperf3
    for conn in held:
        conn.close()
    name = signal.Signals(signum).name
    assert code == 128 + signum, err
    _quiet(err)
    assert err.strip().splitlines()[-1].startswith(f"[client] stopped by {name}"), err
    assert list(workdir.iterdir()) == []
    assert left == [], err  # neither iperf3 -s nor iperf3 -c outlived the desktop


def test_ctrl_c_to_the_desktop_alone_cleans_up_too(tmp_path, cable):
    """`kill -INT PID` (not the terminal's whole group): the tools in their own sessions hear of it from the
    desktop alone."""
    hung, held = cable.listening(), []
    iperf3 = {"server": CABLE_ADDRESS, "port": hung.getsockname()[1], "streams": 1, "seconds": 1, "omit": 0,
              "reverse": False}
    with hung, HostileNas([("iperf3", iperf3)], nas_address=CABLE_ADDRESS, sock=cable.listening()) as nas:
        desk = nas.start(prefix=cable.prefix)
        wait_for(lambda: _accepted(hung, held), "iperf3 connecting to the NAS")
        code, err = signal_and_wait(desk, signal.SIGINT, group=False)
        left = cable.processes()
    for conn in held:
        conn.close()
    assert code == 128 + signal.SIGINT and "[client] stopped by SIGINT" in err, err
    _quiet(err)
    assert left == [], err


def test_ctrl_c_while_the_nas_is_silent_ends_in_one_line(tmp_path):
    """The NAS reads nothing any more (not even the desktop's close): the desktop does not wait on it."""
    workdir, share = tmp_path / "work", tmp_path / "share"
    workdir.mkdir()
    share.mkdir()
    prepare = {"op": "prepare", "server": "127.0.0.1", "share": "share", "remote": "tengig-bench-1-1-desk",
               "size": 64 * MiB}
    with HostileNas([("smb", prepare)], then=SILENT) as nas:
        desk = nas.start("--mount", str(share), "--workdir", str(workdir))
        wait_for(lambda: nas.silent, "the desktop asking the silent NAS")
        code, err = signal_and_wait(desk, signal.SIGINT)
    assert code == 128 + signal.SIGINT, err
    _quiet(err)
    assert err.strip().splitlines()[-1].startswith("[client] stopped by SIGINT"), err
    assert list(workdir.iterdir()) == []


@pytest.mark.abuse
def test_a_silent_nas_ends_the_desktop_after_the_silence_limit(tmp_path, cable):
    """A NAS that stops answering (after asking for a peer server): the desktop ends after --nas-silence,
    naming the call that went unanswered, and stops its peer server."""
    listen = {"op": "listen", "bind": CABLE_ADDRESS, "port": 5201, "seconds": 1, "omit": 0}
    with HostileNas([("peer", listen), SILENT], nas_address=CABLE_ADDRESS, sock=cable.listening()) as nas:
        started = time.monotonic()
        desk = nas.start("--nas-silence", "2", prefix=cable.prefix)
        _, err = desk.communicate(timeout=120)
        took = time.monotonic() - started
    assert desk.returncode == 1, err
    _quiet(err)
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: the NAS did not answer tengig.bench.session.next within 2 s"), err
    assert "--nas-silence" in last
    assert took >= 2  # it waited the limit (a lower bound: the limit was used, not skipped)
    assert cable.processes() == []


@pytest.mark.abuse
def test_a_nas_that_never_answers_the_connection_ends_the_desktop_in_one_line(tmp_path):
    """TCP accepted, then nothing: not even the websocket's handshake."""
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(1)
        with HostileNas([]) as nas:  # for its command line only
            nas.url = f"ws://127.0.0.1:{mute.getsockname()[1]}"
            desk = nas.start("--nas-silence", "1")
            _, err = desk.communicate(timeout=120)
    assert desk.returncode == 1, err
    _quiet(err)
    assert err.strip().splitlines() == [f"error: cannot reach the NAS's API: no answer from {nas.url}/api/current "
                                        "within 1 s (--nas-silence)"], err


@pytest.mark.abuse
def test_a_nas_answering_next_with_null_at_once_is_asked_again_less_and_less_often(tmp_path):
    """null is "ask again" after the NAS waited the time asked; one that answers null at once is not hammered:
    each early null doubles the pause before the next question."""
    with HostileNas([None] * 4) as nas:
        done = nas.join(tmp_path)
    assert done.returncode == 0, done.stderr
    _quiet(done.stderr)
    assert len(nas.polls) == 5  # four nulls, then done
    gaps = [b - a for a, b in zip(nas.polls, nas.polls[1:])]
    for i, gap in enumerate(gaps):
        assert gap >= nas_pace.NULL_PAUSE_S * 2 ** i, gaps


def test_the_pause_after_early_nulls_is_bounded():
    pauses = [nas_pace.null_pause(n) for n in range(1, 20)]
    assert pauses[0] == nas_pace.NULL_PAUSE_S and pauses == sorted(pauses) and pauses[-1] == nas_pace.NULL_PAUSE_MAX_S


def test_the_desktops_page_states_the_limits_the_code_uses():
    text = " ".join((REPO / "docs" / "desktops.md").read_text().split())
    assert f"answers nothing for {nas_pace.NAS_SILENCE_S:g} s (it answers within {nas_pace.NEXT_WAIT_S:g} s" in text
    assert f"doubles up to {nas_pace.NULL_PAUSE_MAX_S:g} s" in text
    assert f"server stopped {LISTEN_SLACK_S:g} s after that at the latest" in text
