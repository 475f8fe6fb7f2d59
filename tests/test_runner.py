import os
import signal
import threading
import time
from pathlib import Path

import pytest

from tengig import process_tree
from tengig import runner as runner_module
from tengig.errors import Aborted, CommandFailed, CommandNotFound, CommandTimeout
from tengig.runner import Runner, in_netns, run


def test_argument_with_shell_syntax_stays_one_argument(tmp_path):
    canary = tmp_path / "canary"
    canary.write_text("alive")
    evil = f"x; rm -rf {canary}; echo $HOME `id` | cat"
    done = run(["printf", "%s\\n", evil], timeout=5)
    assert done.stdout.splitlines() == [evil]  # printed verbatim: no shell expanded or split it
    assert canary.read_text() == "alive"


def test_string_argv_is_refused():
    with pytest.raises(TypeError, match="never runs a shell"):
        run("echo hi; rm -rf /", timeout=5)


def test_failure_carries_command_exit_code_and_stderr():
    with pytest.raises(CommandFailed) as info:
        run(["sh", "-c", "echo broken >&2; exit 3"], timeout=5)
    err = info.value
    assert err.returncode == 3
    assert "broken" in err.stderr
    assert err.argv == ["sh", "-c", "echo broken >&2; exit 3"]
    assert "exited with 3" in str(err)


def test_check_false_returns_the_exit_code():
    assert run(["false"], timeout=5, check=False).returncode == 1


def test_timeout_kills_and_says_so():
    with pytest.raises(CommandTimeout) as info:
        run(["sleep", "5"], timeout=0.3)
    assert info.value.timeout == 0.3
    assert "did not finish within 0.3 s" in str(info.value)


def _gone(pid: int) -> bool:
    """Ended: no such process, or a zombie its new parent has not reaped yet. A KILLed process closes its
    files (the run's wait for the pipes ends) a moment before it is a zombie: that moment is waited for."""
    for _ in range(100):
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def _stopped(argv: list[str], cancelled: bool, after: float = 0.5) -> Exception:
    """Run ``argv`` until a timeout ``after`` seconds in, or a cancel then; the error the run raised."""
    cancel = threading.Event()
    if cancelled:
        threading.Timer(after, cancel.set).start()
    with pytest.raises(Aborted if cancelled else CommandTimeout) as info:
        run(argv, timeout=60 if cancelled else after, cancel=cancel)
    return info.value


def _kill_if_left(pid_file: Path) -> None:
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("cancelled", [False, True])
@pytest.mark.parametrize("tree_from", ["proc", "ps"])
def test_a_timeout_or_a_cancel_kills_what_the_program_started_in_a_session_of_its_own(
        tmp_path, monkeypatch, cancelled, tree_from):
    """fio's job processes call setsid: a KILL of the program's group missed them. The whole tree goes, read
    from /proc or (FreeBSD, macOS) from the real `ps`, and no wait is left for its pipes."""
    if tree_from == "ps":
        monkeypatch.setattr(process_tree, "PROC", tmp_path / "no-proc")
    pid_file = tmp_path / "helper.pid"
    try:
        error = _stopped(["sh", "-c", f'setsid sh -c "sleep 120; sleep 1" & echo $! > {pid_file}; wait'], cancelled)
        helper = int(pid_file.read_text())
        assert _gone(helper), f"the helper in its own session is still running (PID {helper})"
        assert "left behind" not in str(error), str(error)
    finally:
        _kill_if_left(pid_file)


def test_ps_output_gives_the_tree():
    ps = "    1     0\n  200     1\n  201   200\n  202   201\n  300     1\n bad line\n"
    children = process_tree.parse_ps_parents(ps)
    assert process_tree.descendants(200, children) == {201, 202}
    assert process_tree.descendants(202, children) == set()


@pytest.mark.parametrize("cancelled", [False, True])
def test_a_program_whose_output_outlives_its_kill_ends_the_wait_and_is_named(tmp_path, monkeypatch, cancelled):
    """A helper out of the tree's reach (its parent, a subshell, ended first: it belongs to init now) holds the
    program's stdout after the KILL (as a program stuck on a filesystem that no longer answers would): the run
    stops waiting after KILLED_WAIT_S and says so, keeping what the program printed before."""
    monkeypatch.setattr(runner_module, "KILLED_WAIT_S", 0.5)
    pid_file = tmp_path / "helper.pid"
    try:
        error = _stopped(["sh", "-c", f'(setsid sleep 120 & echo $! > {pid_file}); echo "read 12 MiB"; '
                          'echo "pool busy" >&2; sleep 120'], cancelled, after=3)
        if not cancelled:  # 3 s: time for a busy machine's shell to start the helper and print
            assert "did not finish within 3 s and was killed; 0.5 s after its KILL it was ended (-9), a process " \
                   "it started is not: left behind (PID" in str(error), str(error)
            assert (error.stdout, error.stderr) == ("read 12 MiB\n", "pool busy\n")
    finally:
        _kill_if_left(pid_file)


def test_missing_program_is_a_typed_error():
    with pytest.raises(CommandNotFound, match="not installed"):
        run(["tengig-no-such-program"], timeout=5)


def test_every_call_needs_a_timeout():
    with pytest.raises(ValueError, match="timeout"):
        run(["true"], timeout=0)


def test_netns_wrapping_is_argv_only():
    assert in_netns(["iperf3", "-c", "nas"], "tg-desk") == ["ip", "netns", "exec", "tg-desk", "iperf3", "-c", "nas"]
    assert in_netns(["ss"], "tg-nas", mode="nsenter") == ["nsenter", "--net=/run/netns/tg-nas", "--", "ss"]
    assert in_netns(["ss"], None) == ["ss"]


def test_extra_env_reaches_the_child():
    done = Runner(extra_env={"TENGIG_TEST_MARK": "42"}).run(["sh", "-c", "echo $TENGIG_TEST_MARK"], timeout=5)
    assert done.stdout.strip() == "42"


def test_a_spawned_servers_report_is_read_from_its_stdout_and_its_notes_stay_in_the_log(tmp_path):
    """How the NAS reads its own iperf3 server's -J report (bench/network.server_report): stdout piped,
    stderr in the log; a server that ended by itself is read whole, one still waiting is stopped first."""
    import sys

    from tengig.bench.phases.network import server_report

    log = tmp_path / "server.log"
    big = "x" * 200_000  # more than a pipe holds: read while it ends, not after
    done = Runner().spawn([sys.executable, "-c", "import sys; print('note', file=sys.stderr); print('x' * 200_000)"],
                          log_path=log, stdout_pipe=True)
    assert server_report(done, wait=True) == big + "\n" and done.returncode == 0
    assert log.read_text() == "note\n"
    waiting = Runner().spawn([sys.executable, "-c", "import time; time.sleep(600)"], log_path=log, stdout_pipe=True)
    assert server_report(waiting, wait=False) == "" and waiting.returncode == -15  # stopped with TERM
